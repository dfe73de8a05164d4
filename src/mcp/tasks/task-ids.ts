import { createHmac } from 'node:crypto';
import type { Config } from '../../config.js';
import { derivedKey } from '../../security/derived-keys.js';
import { hashToken } from '../../security/tokens.js';

const TASK_ID = /^sim_tk_[A-Za-z0-9_-]{43}$/;

/** Task ids whose hashes are remembered: more than the working tasks one instance is polled for. */
const ID_HASHES_KEPT = 10_000;

/**
 * Whether a caller's task id has the shape TaskIds.mint gives (256 bits behind a readable prefix, like
 * the server's tokens; only its hash is stored). Anything else is no task of ours and is answered "not
 * found" before it is hashed or remembered: an id's length is the caller's choice.
 */
export function isTaskId(taskId: string): boolean {
  return taskId.length === 50 && TASK_ID.test(taskId);
}

/** Task ids: minted from the grant and its job, and hashed as stored. */
export class TaskIds {
  private readonly key: Buffer;
  private readonly hashes = new Map<string, string>();

  constructor(config: Config) {
    this.key = derivedKey(config, 'social-intel-mcp task-id v1');
  }

  /**
   * The task id for a grant's task on one upstream job: a keyed hash, so an identical submit that
   * reuses the job (../reuse/) names the same task, and nobody without SECRET_KEY can compute one.
   */
  mint(grantId: string, jobKind: string, jobId: string): string {
    const mac = createHmac('sha256', this.key).update(`${grantId}\n${jobKind}\n${jobId}`).digest('base64url');
    return `sim_tk_${mac}`;
  }

  /**
   * The stored hash of a task id that passed isTaskId, remembered for the ids read lately (each poll of
   * a task repeats it); the shape check bounds each entry, ID_HASHES_KEPT their number.
   */
  hashOf(taskId: string): string {
    let hash = this.hashes.get(taskId);
    if (hash === undefined) {
      if (this.hashes.size >= ID_HASHES_KEPT) this.hashes.clear();
      hash = hashToken(taskId);
      this.hashes.set(taskId, hash);
    }
    return hash;
  }
}
