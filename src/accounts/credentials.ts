import { createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { upstreamCredentials, users, workspaceMembers } from '../db/schema/index.js';
import { SecretBox } from '../security/secrets.js';
import { recordAccountEvent } from './audit.js';

/** Upstream API tokens are header values: visible ASCII, no spaces. */
export const UPSTREAM_TOKEN_MAX_LENGTH = 512;
export const UPSTREAM_USER_ID_MAX_LENGTH = 128;

/**
 * The upstream user id a member acts as when none was entered: stable, derived from the account id,
 * and revealing nothing about it.
 */
export function defaultUpstreamUserId(userId: string): string {
  return `u_${createHash('sha256').update(userId).digest('hex').slice(0, 16)}`;
}

/**
 * What /mcp needs on every call: the workspace's decrypted token and the member's upstream user id
 * (their own, else the stable default). Null when the user is not a member or nothing is linked.
 * One indexed query (members primary key, credentials primary key). Throws when the envelope cannot
 * be opened (its key is not configured or the row was tampered with): that is a server fault, not
 * "no credential".
 */
export function loadUpstreamCredential(
  db: Db,
  secrets: SecretBox,
  workspaceId: string,
  userId: string,
): { token: string; userId: string } | null {
  const row = db
    .select({
      memberUpstreamUserId: workspaceMembers.upstreamUserId,
      tokenCiphertext: upstreamCredentials.tokenCiphertext,
    })
    .from(workspaceMembers)
    .innerJoin(upstreamCredentials, eq(upstreamCredentials.workspaceId, workspaceMembers.workspaceId))
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)))
    .get();
  if (!row) return null;
  return {
    token: secrets.open(row.tokenCiphertext, workspaceId),
    userId: row.memberUpstreamUserId ?? defaultUpstreamUserId(userId),
  };
}

export interface CredentialSummary {
  tokenLast4: string;
  upstreamUserId: string;
  verifiedAt: number;
  linkedByEmail: string | null;
}

/** What the credentials page may show: never the token, only its last four characters. */
export function getCredentialSummary(db: Db, workspaceId: string): CredentialSummary | null {
  const row = db
    .select({
      tokenLast4: upstreamCredentials.tokenLast4,
      upstreamUserId: upstreamCredentials.upstreamUserId,
      verifiedAt: upstreamCredentials.verifiedAt,
      linkedByEmail: users.email,
    })
    .from(upstreamCredentials)
    .leftJoin(users, eq(users.id, upstreamCredentials.linkedBy))
    .where(eq(upstreamCredentials.workspaceId, workspaceId))
    .get();
  return row ?? null;
}

/**
 * Stores a verified token for the workspace (replacing any previous one), sealed with the current
 * key and bound to the workspace id, and makes `upstreamUserId` the linking member's upstream user id.
 * One transaction.
 */
export function saveUpstreamCredential(
  db: Db,
  secrets: SecretBox,
  input: { workspaceId: string; linkedBy: string; token: string; upstreamUserId: string; verifiedAt: number },
): void {
  const now = Date.now();
  const values = {
    tokenCiphertext: secrets.seal(input.token, input.workspaceId),
    keyId: secrets.currentKeyId,
    tokenLast4: input.token.slice(-4),
    upstreamUserId: input.upstreamUserId,
    linkedBy: input.linkedBy,
    verifiedAt: input.verifiedAt,
    updatedAt: now,
  };
  db.transaction((tx) => {
    tx.insert(upstreamCredentials)
      .values({ workspaceId: input.workspaceId, createdAt: now, ...values })
      .onConflictDoUpdate({ target: upstreamCredentials.workspaceId, set: values })
      .run();
    tx.update(workspaceMembers)
      .set({ upstreamUserId: input.upstreamUserId })
      .where(
        and(eq(workspaceMembers.workspaceId, input.workspaceId), eq(workspaceMembers.userId, input.linkedBy)),
      )
      .run();
    recordAccountEvent(
      tx,
      { kind: 'credential_linked', userId: input.linkedBy, workspaceId: input.workspaceId },
      now,
    );
  });
}

/** Forgets the workspace's credential. Returns whether there was one. */
export function removeUpstreamCredential(
  db: Db,
  workspaceId: string,
  removedBy: string | null = null,
): boolean {
  return db.transaction((tx) => {
    const removed =
      tx.delete(upstreamCredentials).where(eq(upstreamCredentials.workspaceId, workspaceId)).run().changes >
      0;
    if (removed) recordAccountEvent(tx, { kind: 'credential_removed', userId: removedBy, workspaceId });
    return removed;
  });
}

/**
 * Key rotation: re-seals every credential whose envelope is not under the current key. Each row is
 * updated only if it is still the envelope that was read (a credential replaced meanwhile is left
 * alone, already current). Rows that cannot be opened (key not configured, tampered) are counted as
 * failed and left untouched.
 */
export function reencryptCredentials(
  db: Db,
  secrets: SecretBox,
): { reencrypted: number; alreadyCurrent: number; failed: number } {
  const result = { reencrypted: 0, alreadyCurrent: 0, failed: 0 };
  const rows = db
    .select({
      workspaceId: upstreamCredentials.workspaceId,
      tokenCiphertext: upstreamCredentials.tokenCiphertext,
    })
    .from(upstreamCredentials)
    .all();
  for (const row of rows) {
    if (SecretBox.keyIdOf(row.tokenCiphertext) === secrets.currentKeyId) {
      result.alreadyCurrent++;
      continue;
    }
    let sealed: string;
    try {
      sealed = secrets.seal(secrets.open(row.tokenCiphertext, row.workspaceId), row.workspaceId);
    } catch {
      result.failed++;
      continue;
    }
    const changed = db
      .update(upstreamCredentials)
      .set({ tokenCiphertext: sealed, keyId: secrets.currentKeyId, updatedAt: Date.now() })
      .where(
        and(
          eq(upstreamCredentials.workspaceId, row.workspaceId),
          eq(upstreamCredentials.tokenCiphertext, row.tokenCiphertext),
        ),
      )
      .run().changes;
    if (changed) result.reencrypted++;
    else result.alreadyCurrent++;
  }
  return result;
}
