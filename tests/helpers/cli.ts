import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './process.js';

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

/** The non-empty lines of a text. */
export const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');
