/**
 * The steps from a checkout to what people install: the npm package (`npm pack`, which builds through
 * `prepack`), that package installed without dev dependencies as `npx` installs it, and the MCP Bundle
 * made from such an install. Shared by `npm run bundle` (scripts/bundle.ts) and the test that installs
 * the package (tests/package/install.test.ts), so both take the same path.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Runs a command to its end; its output, or an error carrying it. */
export function runStep(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): string {
  const result = spawnSync(command, args, {
    cwd,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.signal}):\n${output}`);
  return output;
}

/** `npm pack` of the package at `source` (its prepack builds dist/ there) into `destination`. */
export function packPackage(source: string, destination: string): string {
  mkdirSync(destination, { recursive: true });
  runStep(NPM, ['pack', '--pack-destination', destination], source);
  const tarball = readdirSync(destination).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack left no tarball in ${destination}`);
  return join(destination, tarball);
}

/**
 * The tarball installed into an empty folder without dev dependencies, as a person's `npx` or
 * `npm install` does; `env` reaches the dependencies' install scripts.
 */
export function installPackage(tarball: string, folder: string, env: NodeJS.ProcessEnv = {}): void {
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'package.json'), '{ "name": "installed", "private": true }\n');
  runStep(
    NPM,
    ['install', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline', tarball],
    folder,
    env,
  );
}

/**
 * What a bundle leaves out: the native modules that only the hosted server and the admin commands
 * load (SQLite, argon2, the C-heap trimmer). The bundle's entry point (dist/src/stdio/main.js) loads
 * none of them, so one bundle runs on every platform Node runs on; drawn from an install on one
 * platform, their binaries would be that platform's only.
 */
export const BUNDLE_LEAVES_OUT = [
  'node_modules/better-sqlite3/',
  'node_modules/bindings/',
  'node_modules/prebuild-install/',
  'node_modules/@node-rs/',
  'node_modules/koffi/',
];

/**
 * The folder `mcpb pack` turns into a bundle, from an install made by installPackage: the package's
 * own files (manifest.json among them) at the top, the packages it depends on in node_modules/.
 */
export function stageBundle(installed: string, stage: string): void {
  const modules = join(installed, 'node_modules');
  cpSync(join(modules, 'social-intel-mcp'), stage, { recursive: true, dereference: true });
  for (const name of readdirSync(modules)) {
    if (name === 'social-intel-mcp' || name === '.bin' || name.startsWith('.')) continue;
    cpSync(join(modules, name), join(stage, 'node_modules', name), { recursive: true, dereference: true });
  }
  writeFileSync(join(stage, '.mcpbignore'), `${BUNDLE_LEAVES_OUT.join('\n')}\n`);
}

/** `mcpb pack` (the MCP Bundle tool, a dev dependency of this repository) of a staged folder. */
export function packBundle(mcpb: string, stage: string, output: string): string {
  return runStep(mcpb, ['pack', stage, output], stage);
}
