import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Spawned {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout line matching the pattern. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  exit(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal?: NodeJS.Signals): void;
}

/** Runs a command from the repository root with a controlled environment, capturing its output. */
export function spawnProcess(
  command: string,
  args: string[],
  env: Record<string, string | undefined>,
): Spawned {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  const exited = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitForLine(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(`no line matching ${pattern} within ${timeoutMs} ms\nstdout:\n${out}\nstderr:\n${err}`),
          );
        }, timeoutMs);
        const check = () => {
          const line = out.split('\n').find((l) => pattern.test(l));
          if (line) {
            cleanup();
            resolve(line);
          }
        };
        const onExit = () => {
          cleanup();
          reject(new Error(`process exited before printing ${pattern}\nstdout:\n${out}\nstderr:\n${err}`));
        };
        const cleanup = () => {
          clearTimeout(timer);
          child.stdout?.off('data', check);
          child.off('exit', onExit);
        };
        child.stdout?.on('data', check);
        child.once('exit', onExit);
        check();
      });
    },
    exit: () => exited,
    kill: (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}
