import { eq, inArray, lt } from 'drizzle-orm';
import { deleteInBatches } from '../db/batches.js';
import { changed, first, type Store } from '../db/store/index.js';
import type { SecretBox } from '../security/secrets.js';
import { CODE_TTL_MS } from './codes.js';

/**
 * The consent form's one-use id: the signed authorization request carries it, and the
 * first decision posted with it is the only one acted on. The answer (the redirect to the client, with
 * its code) is kept sealed, so the same form posted again (a double click: the browser shows the
 * second response) is sent the same redirect, never a second code. Kept in the database, so it holds
 * across instances: the id's primary key decides which post is first.
 */
export type DecisionOutcome =
  | { kind: 'decided'; location: string }
  | { kind: 'replayed'; location: string }
  | { kind: 'already-answered' };

function context(id: string): string {
  return `oauth-decision:${id}`;
}

/**
 * Runs `decide` (with the transaction's handle, for its own writes) for the first post of decision `id`
 * and stores its answer, in one transaction with the claim: a concurrent post of the same id waits for
 * it (on PostgreSQL, the INSERT waits on the uncommitted key, then finds it taken), then replays the
 * answer. A later post gets the same answer while its code can still be exchanged, after that only
 * "already answered".
 */
export function decideOnce(
  db: Store,
  secrets: SecretBox,
  decision: { id: string; userId: string; expiresAt: number },
  decide: (tx: Store) => Promise<string>,
  now = Date.now(),
): Promise<DecisionOutcome> {
  return db.transaction(async (tx): Promise<DecisionOutcome> => {
    const { oauthDecisions } = tx.t;
    const claimed = await changed(
      tx.orm
        .insert(oauthDecisions)
        .values({ id: decision.id, userId: decision.userId, createdAt: now, expiresAt: decision.expiresAt })
        .onConflictDoNothing()
        .returning({ id: oauthDecisions.id }),
    );
    if (claimed === 1) {
      const location = await decide(tx);
      await tx.orm
        .update(oauthDecisions)
        .set({ answerSealed: secrets.seal(location, context(decision.id)) })
        .where(eq(oauthDecisions.id, decision.id));
      return { kind: 'decided', location };
    }
    const earlier = await first(
      tx.orm.select().from(oauthDecisions).where(eq(oauthDecisions.id, decision.id)),
    );
    if (
      earlier?.userId !== decision.userId ||
      !earlier.answerSealed ||
      now - earlier.createdAt > CODE_TTL_MS
    ) {
      return { kind: 'already-answered' };
    }
    return { kind: 'replayed', location: secrets.open(earlier.answerSealed, context(decision.id)) };
  });
}

/** Deletes decisions whose consent form has expired (purge.ts); returns how many. */
export function purgeDecisions(db: Store, now: number): Promise<number> {
  return deleteInBatches(db.engine, (batch) => changed(expiredDecisionsBatch(db, now, batch)));
}

/** Deletes a batch of decisions expired before `now` (decisions_expires_idx). */
export function expiredDecisionsBatch(db: Store, now: number, batch: number) {
  const { oauthDecisions: d } = db.t;
  return db.orm
    .delete(d)
    .where(inArray(d.id, db.orm.select({ id: d.id }).from(d).where(lt(d.expiresAt, now)).limit(batch)))
    .returning({ id: d.id });
}
