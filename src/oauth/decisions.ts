import { eq, sql } from 'drizzle-orm';
import { deleteInBatches } from '../db/batches.js';
import type { Db } from '../db/client.js';
import { oauthDecisions } from '../db/schema/index.js';
import type { SecretBox } from '../security/secrets.js';
import { CODE_TTL_MS } from './grants.js';

/**
 * The consent form's one-use id (DESIGN.md §4): the signed authorization request carries it, and the
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
 * Runs `decide` for the first post of decision `id` and stores its answer, in one transaction with the
 * claim: a concurrent post of the same id waits for it, then replays the answer. A later post gets the
 * same answer while its code can still be exchanged, after that only "already answered".
 */
export function decideOnce(
  db: Db,
  secrets: SecretBox,
  decision: { id: string; userId: string; expiresAt: number },
  decide: () => string,
  now = Date.now(),
): DecisionOutcome {
  return db.transaction((tx): DecisionOutcome => {
    const claimed = tx
      .insert(oauthDecisions)
      .values({ id: decision.id, userId: decision.userId, createdAt: now, expiresAt: decision.expiresAt })
      .onConflictDoNothing()
      .run().changes;
    if (claimed === 1) {
      const location = decide();
      tx.update(oauthDecisions)
        .set({ answerSealed: secrets.seal(location, context(decision.id)) })
        .where(eq(oauthDecisions.id, decision.id))
        .run();
      return { kind: 'decided', location };
    }
    const earlier = tx.select().from(oauthDecisions).where(eq(oauthDecisions.id, decision.id)).get();
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
export function purgeDecisions(db: Db, now: number): number {
  return deleteInBatches(
    (batch) =>
      db
        .delete(oauthDecisions)
        .where(sql`rowid IN (SELECT rowid FROM oauth_decisions WHERE expires_at < ${now} LIMIT ${batch})`)
        .run().changes,
  );
}
