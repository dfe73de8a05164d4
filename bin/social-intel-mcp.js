#!/usr/bin/env node
// Launcher for the admin command line (`npx social-intel-mcp <command>`).
//
// Why a plain JS file instead of pointing `bin` at the compiled output directly: `bin` must name a
// file that exists in every checkout, and dist/ exists only after `npm run build`. So this file
// runs the compiled dist/src/cli/main.js when it is there (production images, `npm start` has built
// it: no TypeScript tooling needed at run time), and otherwise runs the TypeScript source through
// tsx (a development checkout before any build). After editing src/cli in a checkout that has a
// dist/, run `npm run build` (or `node --import tsx src/cli/main.ts …`) to use the new code.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const compiled = new URL('../dist/src/cli/main.js', import.meta.url);
if (existsSync(fileURLToPath(compiled))) {
  await import(compiled.href);
} else {
  const { tsImport } = await import('tsx/esm/api');
  await tsImport('../src/cli/main.ts', import.meta.url);
}
