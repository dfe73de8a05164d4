import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';

/**
 * Which test files run on both database engines, derived from where each lives and what it imports
 * (vitest.config.ts runs the rest once, in the sqlite project; docs/testing.md explains the rule).
 * A file runs on both when all three hold:
 * 1. it lives in a room whose code keeps state in the database (STATE_ROOMS);
 * 2. it imports a helper that starts a server or opens a database on the run's engine: engine.ts
 *    or a helper that reaches it through its own imports (type-only imports aside), computed here;
 * 3. it neither picks its engine itself (ENGINE_CHOSEN: both engines in one file, its own PostgreSQL
 *    database, two instances on PostgreSQL, a SQLite file of its own) nor looks at pages in a browser
 *    (BROWSER_HELPERS: the HTML is the same on either engine; the rules behind the pages are tested
 *    over HTTP on both).
 */

/** The rooms of tests/ whose code keeps state in the database: accounts, grants, teams, tasks, reuse. */
export const STATE_ROOMS = [
  'tests/accounts/',
  'tests/cli/',
  'tests/housekeeping/',
  'tests/http/',
  'tests/metrics/',
  'tests/oauth/',
  'tests/reliability/',
  'tests/teams/',
  'tests/web/',
  'tests/mcp/auth/',
  'tests/mcp/reuse/',
  'tests/mcp/tasks/',
];

/** Helpers that drive Chromium: what a person sees and does, the same on either engine. */
const BROWSER_HELPERS = new Set(['browser', 'page-checks', 'consent-in-browser']);

/** Names a test uses when it picks its engine itself (see 3. above). */
const ENGINE_CHOSEN =
  /\bENGINES\b|\bengine: '(?:sqlite|postgres)'|\bfreshPostgresDatabase\b|\bstartTwoInstances\b|\bopenSqlite(?:Store|File)\b/;

/** The modules a source file imports at run time (`import type` aside), as absolute paths. */
function runtimeImports(file: string, text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/^import\s+(type\s+)?[^;]*?from\s+'(\.[^']+)'/gms)) {
    if (m[1] === undefined && m[2] !== undefined) found.push(m[2]);
  }
  for (const m of text.matchAll(/\bimport\('(\.[^']+)'\)/g)) if (m[1] !== undefined) found.push(m[1]);
  return found.map((spec) => resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
}

/** The helpers (by name) that start a server or open a database on the run's engine. */
function engineHelpers(helpersDir: string): Set<string> {
  const imports = new Map<string, string[]>();
  for (const name of readdirSync(helpersDir)) {
    if (!name.endsWith('.ts')) continue;
    const file = join(helpersDir, name);
    const local = runtimeImports(file, readFileSync(file, 'utf8')).filter((p) => dirname(p) === helpersDir);
    imports.set(
      basename(name, '.ts'),
      local.map((p) => basename(p, '.ts')),
    );
  }
  const reached = new Set(['engine']);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [name, deps] of imports) {
      if (!reached.has(name) && deps.some((d) => reached.has(d))) {
        reached.add(name);
        grew = true;
      }
    }
  }
  return reached;
}

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(path);
    return /\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** The test files (relative to root, with forward slashes): those run on both engines, and the rest. */
export function engineSplit(root: string): { both: string[]; once: string[] } {
  const helpersDir = join(root, 'tests', 'helpers');
  const engine = engineHelpers(helpersDir);
  const both: string[] = [];
  const once: string[] = [];
  for (const file of testFiles(join(root, 'tests'))) {
    const path = relative(root, file).split('\\').join('/');
    const text = readFileSync(file, 'utf8');
    const helpers = runtimeImports(file, text)
      .filter((p) => dirname(p) === helpersDir)
      .map((p) => basename(p, '.ts'));
    const onBoth =
      STATE_ROOMS.some((room) => path.startsWith(room)) &&
      helpers.some((h) => engine.has(h)) &&
      !helpers.some((h) => BROWSER_HELPERS.has(h)) &&
      !ENGINE_CHOSEN.test(text);
    (onBoth ? both : once).push(path);
  }
  return { both: both.sort(), once: once.sort() };
}
