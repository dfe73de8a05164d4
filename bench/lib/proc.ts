/**
 * Child processes of the benchmark: every one is tracked and killed when the run ends, fails or is
 * interrupted, so no gateway or sandbox outlives `npm run bench`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const children = new Set<ChildProcess>();

function killAll(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  children.clear();
}
process.once('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killAll();
    process.exit(130);
  });
}

export interface Proc {
  pid: number;
  /** Recent stdout (the last 64 KB), when stdout is piped. */
  output(): string;
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
  stop(graceMs?: number): Promise<void>;
  exited: Promise<unknown>;
}

/**
 * Starts a process from the repository root. `logFile`: stdout goes to that file (a gateway logs every
 * request; a file is what production's log shipper amounts to); otherwise stdout is piped and kept.
 */
export function start(
  command: string,
  args: string[],
  env: Record<string, string>,
  options: { logFile?: string } = {},
): Proc {
  const stdout = options.logFile ? openSync(options.logFile, 'a') : 'pipe';
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', stdout, 'inherit'],
  });
  children.add(child);
  const exited = once(child, 'exit').catch(() => undefined);
  void exited.then(() => children.delete(child));
  let out = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    out = (out + d).slice(-65_536);
  });
  return {
    pid: child.pid ?? -1,
    output: () => out,
    exited,
    waitForLine(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const line = out.split('\n').find((l) => pattern.test(l));
          if (line) {
            done();
            resolve(line);
          }
        };
        const onExit = () => {
          done();
          reject(new Error(`${command} ${args.join(' ')} exited before printing ${pattern}`));
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          child.stdout?.off('data', check);
          child.off('exit', onExit);
        };
        child.stdout?.on('data', check);
        child.once('exit', onExit);
        check();
      });
    },
    async stop(graceMs = 5_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Polls `url` until it answers 200; resolves with the milliseconds since `since`. */
export async function waitForOk(url: string, since: number, timeoutMs = 30_000): Promise<number> {
  for (;;) {
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status === 200) return performance.now() - since;
    } catch {
      // not listening yet
    }
    if (performance.now() - since > timeoutMs)
      throw new Error(`${url} did not answer 200 in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
