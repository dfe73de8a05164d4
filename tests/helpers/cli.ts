import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { OpenStore } from '../../src/db/store/index.js';
import { testEngine } from './engine.js';
import { ROOT } from './process.js';
import { migratedTestStore } from './stores.js';
import { TEST_SECRET_KEY } from './temp.js';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the admin command line as a real process, `node --import tsx src/cli/main.ts …` (or any
 * script, e.g. the bin launcher), with a controlled environment and optional standard input.
 * (tests/helpers/process.ts spawnProcess ignores stdin; --password-stdin needs a pipe.)
 */
export function runCli(
  args: string[],
  env: Record<string, string | undefined>,
  options: { stdin?: string; script?: string[] } = {},
): Promise<CliResult> {
  const script = options.script ?? ['--import', 'tsx', join(ROOT, 'src', 'cli', 'main.ts')];
  const child = spawn(process.execPath, [...script, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'silent', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  child.stdin.end(options.stdin ?? '');
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface CliWorkspace {
  /** What points the CLI at the database: DATABASE_PATH (SQLite) or DATABASE_URL, and SECRET_KEY. */
  env: Record<string, string>;
  /** The same database, for the test to set up and check. */
  db: OpenStore;
  close(): Promise<void>;
}

/** A fresh migrated database of the run's engine, and the environment that points the CLI at it. */
export async function cliWorkspace(): Promise<CliWorkspace> {
  const ctx = await migratedTestStore(testEngine());
  const { databasePath, databaseUrl } = ctx.location;
  return {
    env: {
      DATABASE_PATH: databasePath || join(ROOT, 'no-such-folder', 'unused.db'),
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      SECRET_KEY: TEST_SECRET_KEY,
    },
    db: ctx.store,
    close: () => ctx.cleanup(),
  };
}

/** The non-empty lines of a text. */
export const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');
