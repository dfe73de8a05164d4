import { and, eq, gt, lt, ne } from 'drizzle-orm';
import type { OpenStore, Store } from '../../db/store/index.js';
import type { Logger } from '../../logger.js';
import { newId } from '../../security/tokens.js';

/** The one channel cancellations are forwarded on; each message names the instance it is for. */
const CHANNEL = 'social_intel_mcp_cancel';

export interface CallDirectoryOptions {
  /**
   * A call is written to the directory once it has run this long: quick calls cost no write, and a
   * cancel for a call that is still this young can only reach it on the instance it landed on.
   */
  announceAfterMs?: number;
  /** How long a row counts at most (longer than any wait): a crashed instance's rows then stop counting. */
  ttlMs: number;
}

interface Forwarded {
  to: string;
  grantId: string;
  requestKey: string;
}

/**
 * The instances' shared directory of long-running tool calls, for legacy clients' cancellation
 * (inflight.ts): a `notifications/cancelled` arrives in its own POST, which the load balancer may send
 * to another instance than the one running the call. Every instance writes a `waiting_calls` row for
 * each call that has run `announceAfterMs`; the instance receiving a cancel counts the calls with that
 * (grant, request id) on every instance, and when there is exactly one elsewhere it forwards the cancel
 * to its instance with PostgreSQL NOTIFY; that instance aborts the call, which stops its wait as a
 * local cancel would (the work itself goes on: ../waiting/stop-reasons.ts).
 */
export class CallDirectory {
  readonly instanceId = newId();
  private unlisten: (() => Promise<void>) | null = null;
  private readonly announceAfterMs: number;

  constructor(
    private readonly db: OpenStore,
    private readonly logger: Logger,
    private readonly options: CallDirectoryOptions,
  ) {
    this.announceAfterMs = options.announceAfterMs ?? 1_000;
  }

  /** Starts receiving cancels forwarded to this instance. */
  async start(onCancel: (grantId: string, requestKey: string) => void): Promise<void> {
    this.unlisten = await this.db.listen(CHANNEL, (payload) => {
      let message: Forwarded;
      try {
        message = JSON.parse(payload) as Forwarded;
      } catch {
        return;
      }
      if (message.to === this.instanceId) onCancel(message.grantId, message.requestKey);
    });
  }

  async stop(): Promise<void> {
    const unlisten = this.unlisten;
    this.unlisten = null;
    await unlisten?.();
  }

  /**
   * Writes the call to the directory once it has run announceAfterMs; the returned function withdraws
   * it (and cancels the pending write) when the call ends.
   */
  announce(grantId: string, requestKey: string): () => void {
    const { waitingCalls } = this.db.t;
    const id = newId();
    let written: Promise<unknown> | null = null;
    const timer = setTimeout(() => {
      const now = Date.now();
      written = this.db.orm
        .insert(waitingCalls)
        .values({
          id,
          instanceId: this.instanceId,
          grantId,
          requestKey,
          createdAt: now,
          expiresAt: now + this.options.ttlMs,
        })
        .catch((err: unknown) => this.logger.warn({ err }, 'could not announce a waiting call'));
    }, this.announceAfterMs);
    timer.unref();
    return () => {
      clearTimeout(timer);
      if (!written) return;
      void written
        .then(() => this.db.orm.delete(waitingCalls).where(eq(waitingCalls.id, id)))
        .catch((err: unknown) => this.logger.warn({ err }, 'could not withdraw a waiting call'));
    };
  }

  /** The instances (other than this one) running a call with this (grant, request id), one entry each. */
  async elsewhere(grantId: string, requestKey: string, now = Date.now()): Promise<string[]> {
    const { waitingCalls: w } = this.db.t;
    const rows = await this.db.orm
      .select({ instanceId: w.instanceId })
      .from(w)
      .where(
        and(
          eq(w.grantId, grantId),
          eq(w.requestKey, requestKey),
          ne(w.instanceId, this.instanceId),
          gt(w.expiresAt, now),
        ),
      );
    return rows.map((r) => r.instanceId);
  }

  /** Sends the cancel to the instance running the call. */
  forward(to: string, grantId: string, requestKey: string): Promise<void> {
    return this.db.notify(CHANNEL, JSON.stringify({ to, grantId, requestKey } satisfies Forwarded));
  }
}

/** Deletes directory rows past their expiry (an instance that stopped without withdrawing them). */
export async function purgeWaitingCalls(db: Store, now = Date.now()): Promise<number> {
  const { waitingCalls: w } = db.t;
  const gone = await db.orm.delete(w).where(lt(w.expiresAt, now)).returning({ id: w.id });
  return gone.length;
}
