#!/usr/bin/env node
// Launcher for the command line (`npx social-intel-mcp <command>`): the admin commands and `stdio`.
//
// Why a plain JS file instead of pointing `bin` at the compiled output directly: `bin` must name a
// file that exists in every checkout, and dist/ exists only after `npm run build`. So this file runs
// the compiled dist/src/cli/main.js when it is there and no source file is newer than it (production
// images, `npm start` has built it: no TypeScript tooling needed at run time), and otherwise runs the
// TypeScript source through tsx (a development checkout before any build, or one edited since). A
// checkout without tsx (installed without dev dependencies) runs whatever dist/ holds.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const compiled = fileURLToPath(new URL('../dist/src/cli/main.js', import.meta.url));
const sources = fileURLToPath(new URL('../src/', import.meta.url));

/** Whether any TypeScript file under src/ changed after the compiled entry was written. */
function sourcesNewerThan(ms) {
  if (!existsSync(sources)) return false;
  return readdirSync(sources, { recursive: true }).some(
    (name) => /\.tsx?$/.test(name) && statSync(`${sources}${name}`).mtimeMs > ms,
  );
}

async function fromSource() {
  try {
    const { tsImport } = await import('tsx/esm/api');
    return () => tsImport('../src/cli/main.ts', import.meta.url);
  } catch {
    return null;
  }
}

const built = existsSync(compiled);
const source = !built || sourcesNewerThan(statSync(compiled).mtimeMs) ? await fromSource() : null;
if (source) await source();
else await import(new URL('../dist/src/cli/main.js', import.meta.url).href);
