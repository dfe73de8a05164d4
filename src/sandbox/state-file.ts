import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { restoreStore, snapshotStore } from './state/persist.js';
import type { Store } from './state/store.js';

/** Where and how the sandbox keeps its state between restarts. */
export interface SandboxPersistence {
  /** The state file (written with mode 0600, replaced atomically). */
  path: string;
  /**
   * Seals the JSON before it is written and opens it when read. The gateway's in-process sandbox
   * encrypts with SECRET_KEY (the file holds sandbox tokens); `npm run sandbox` keeps nothing.
   */
  codec?: { seal(text: string): string; open(text: string): string };
}

/** Changes are written this long after the first one, so a burst of requests costs one write. */
export const SAVE_DELAY_MS = 250;

const warn = (message: string) => process.stderr.write(`[sandbox] ${message}\n`);

/**
 * The store's state file: read once at start, written shortly after changes and once more, in full,
 * when the sandbox is disposed. A file that cannot be read (another key, damaged) is left alone and the
 * sandbox starts empty, saying so: a sandbox must start whatever its leftovers.
 */
export class StateFile {
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  /** Set by flush(): a write still in flight must not replace the final state with older state. */
  private closed = false;

  constructor(
    private readonly store: Store,
    private readonly options: SandboxPersistence,
  ) {}

  /** Loads the file into the (empty) store; 'missing' when there is none yet. */
  load(): 'restored' | 'missing' | 'unreadable' {
    let raw: string;
    try {
      raw = readFileSync(this.options.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
      warn(`cannot read ${this.options.path}; starting empty`);
      return 'unreadable';
    }
    try {
      const text = this.options.codec ? this.options.codec.open(raw) : raw;
      if (restoreStore(this.store, JSON.parse(text))) return 'restored';
    } catch {
      // fall through: damaged, or sealed with a key we no longer have
    }
    warn(`${this.options.path} cannot be used (damaged, another key or another version); starting empty`);
    return 'unreadable';
  }

  /** Something changed: write soon. */
  changed(): void {
    if (this.timer !== null || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      const data = this.serialise();
      this.writing = this.writing
        .then(() => this.writeAsync(data))
        .catch((error: unknown) => {
          warn(`could not save state: ${error instanceof Error ? error.message : String(error)}`);
        });
    }, SAVE_DELAY_MS);
    this.timer.unref();
  }

  /** Writes now, synchronously (at dispose: the process may exit right after). */
  flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.closed = true;
    try {
      const tmp = `${this.options.path}.tmp`;
      writeFileSync(tmp, this.serialise(), { mode: 0o600 });
      renameSync(tmp, this.options.path);
    } catch (error) {
      warn(`could not save state: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private serialise(): string {
    const json = JSON.stringify(snapshotStore(this.store));
    return this.options.codec ? this.options.codec.seal(json) : json;
  }

  private async writeAsync(data: string): Promise<void> {
    const tmp = `${this.options.path}.saving`;
    await writeFile(tmp, data, { mode: 0o600 });
    if (!this.closed) renameSync(tmp, this.options.path);
  }
}
