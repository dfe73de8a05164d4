import { createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { changed, first, type Store, workspaceSubject } from '../db/store/index.js';
import { SecretBox } from '../security/secrets.js';
import { recordAccountEvent } from './audit.js';

export { UPSTREAM_TOKEN_MAX_LENGTH, UPSTREAM_USER_ID_MAX_LENGTH } from '../upstream/credential-shape.js';

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
export async function loadUpstreamCredential(
  db: Store,
  secrets: SecretBox,
  workspaceId: string,
  userId: string,
): Promise<{ token: string; userId: string } | null> {
  const { upstreamCredentials, workspaceMembers } = db.t;
  const row = await first(
    db.orm
      .select({
        memberUpstreamUserId: workspaceMembers.upstreamUserId,
        tokenCiphertext: upstreamCredentials.tokenCiphertext,
      })
      .from(workspaceMembers)
      .innerJoin(upstreamCredentials, eq(upstreamCredentials.workspaceId, workspaceMembers.workspaceId))
      .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId))),
  );
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
export async function getCredentialSummary(
  db: Store,
  workspaceId: string,
): Promise<CredentialSummary | null> {
  const { upstreamCredentials, users } = db.t;
  const row = await first(
    db.orm
      .select({
        tokenLast4: upstreamCredentials.tokenLast4,
        upstreamUserId: upstreamCredentials.upstreamUserId,
        verifiedAt: upstreamCredentials.verifiedAt,
        linkedByEmail: users.email,
      })
      .from(upstreamCredentials)
      .leftJoin(users, eq(users.id, upstreamCredentials.linkedBy))
      .where(eq(upstreamCredentials.workspaceId, workspaceId)),
  );
  return row ?? null;
}

/**
 * Stores a verified token for the workspace (replacing any previous one), sealed with the current
 * key and bound to the workspace id, and makes `upstreamUserId` the linking member's upstream user id.
 * One transaction.
 */
export async function saveUpstreamCredential(
  db: Store,
  secrets: SecretBox,
  input: { workspaceId: string; linkedBy: string; token: string; upstreamUserId: string; verifiedAt: number },
): Promise<void> {
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
  await db.transaction(async (tx) => {
    const { upstreamCredentials, workspaceMembers } = tx.t;
    await tx.orm
      .insert(upstreamCredentials)
      .values({ workspaceId: input.workspaceId, createdAt: now, ...values })
      .onConflictDoUpdate({ target: upstreamCredentials.workspaceId, set: values });
    await tx.orm
      .update(workspaceMembers)
      .set({ upstreamUserId: input.upstreamUserId })
      .where(
        and(eq(workspaceMembers.workspaceId, input.workspaceId), eq(workspaceMembers.userId, input.linkedBy)),
      );
    await tx.invalidate(workspaceSubject(input.workspaceId));
    await recordAccountEvent(
      tx,
      { kind: 'credential_linked', userId: input.linkedBy, workspaceId: input.workspaceId },
      now,
    );
  });
}

/** Forgets the workspace's credential. Returns whether there was one. */
export function removeUpstreamCredential(
  db: Store,
  workspaceId: string,
  removedBy: string | null = null,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const { upstreamCredentials: c } = tx.t;
    const removed =
      (await changed(
        tx.orm.delete(c).where(eq(c.workspaceId, workspaceId)).returning({ workspaceId: c.workspaceId }),
      )) > 0;
    if (removed) await recordAccountEvent(tx, { kind: 'credential_removed', userId: removedBy, workspaceId });
    await tx.invalidate(workspaceSubject(workspaceId));
    return removed;
  });
}

/**
 * Key rotation: re-seals every credential whose envelope is not under the current key. Each row is
 * updated only if it is still the envelope that was read (a credential replaced meanwhile is left
 * alone, already current). Rows that cannot be opened (key not configured, tampered) are counted as
 * failed and left untouched.
 */
export async function reencryptCredentials(
  db: Store,
  secrets: SecretBox,
): Promise<{ reencrypted: number; alreadyCurrent: number; failed: number }> {
  const { upstreamCredentials } = db.t;
  const result = { reencrypted: 0, alreadyCurrent: 0, failed: 0 };
  const rows = await db.orm
    .select({
      workspaceId: upstreamCredentials.workspaceId,
      tokenCiphertext: upstreamCredentials.tokenCiphertext,
    })
    .from(upstreamCredentials);
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
    // Compare-and-set: only if the row still holds the envelope that was read.
    const resealed = await changed(
      db.orm
        .update(upstreamCredentials)
        .set({ tokenCiphertext: sealed, keyId: secrets.currentKeyId, updatedAt: Date.now() })
        .where(
          and(
            eq(upstreamCredentials.workspaceId, row.workspaceId),
            eq(upstreamCredentials.tokenCiphertext, row.tokenCiphertext),
          ),
        )
        .returning({ workspaceId: upstreamCredentials.workspaceId }),
    );
    if (!resealed) {
      result.alreadyCurrent++;
      continue;
    }
    result.reencrypted++;
    await db.invalidate(workspaceSubject(row.workspaceId));
  }
  return result;
}
