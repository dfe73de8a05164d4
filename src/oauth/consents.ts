import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { consents, upstreamCredentials, workspaceMembers } from '../db/schema/index.js';
import { formatScopes, parseScopes, type Scope } from './scopes.js';

/**
 * A remembered consent that covers the requested scopes in a workspace the user still belongs to and
 * that still has credentials: the most recently confirmed one. Scopes that grew mean asking again.
 */
export function rememberedWorkspace(
  db: Db,
  userId: string,
  clientId: string,
  scopes: readonly Scope[],
): string | null {
  const rows = db
    .select({ workspaceId: consents.workspaceId, scopes: consents.scopes })
    .from(consents)
    .innerJoin(
      workspaceMembers,
      and(
        eq(workspaceMembers.workspaceId, consents.workspaceId),
        eq(workspaceMembers.userId, consents.userId),
      ),
    )
    .innerJoin(upstreamCredentials, eq(upstreamCredentials.workspaceId, consents.workspaceId))
    .where(and(eq(consents.userId, userId), eq(consents.clientId, clientId)))
    .orderBy(desc(consents.updatedAt))
    .all();
  for (const row of rows) {
    const given = new Set(parseScopes(row.scopes));
    if (scopes.every((s) => given.has(s))) return row.workspaceId;
  }
  return null;
}

/** Every scope the person has consented to for this client, in any workspace; null when never. */
export function consentedScopes(db: Db, userId: string, clientId: string): Set<Scope> | null {
  const rows = db
    .select({ scopes: consents.scopes })
    .from(consents)
    .where(and(eq(consents.userId, userId), eq(consents.clientId, clientId)))
    .all();
  return rows.length ? new Set(rows.flatMap((r) => parseScopes(r.scopes))) : null;
}

/**
 * Whether the person has ever consented to this client (in any workspace). Such a client is trusted
 * with /authorize error redirects (RFC 9700 §4.11.2): the person chose to connect it, so its redirect
 * URI is not an attacker's open redirector. Pre-registered clients would be trusted too; this server
 * has none (every client registers itself or is a metadata document anyone can publish).
 */
export function hasConsentedTo(db: Db, userId: string, clientId: string): boolean {
  return (
    db
      .select({ userId: consents.userId })
      .from(consents)
      .where(and(eq(consents.userId, userId), eq(consents.clientId, clientId)))
      .limit(1)
      .get() !== undefined
  );
}

export function rememberConsent(
  db: Db,
  userId: string,
  clientId: string,
  workspaceId: string,
  scopes: readonly Scope[],
  now = Date.now(),
): void {
  const value = formatScopes(scopes);
  db.insert(consents)
    .values({ userId, clientId, workspaceId, scopes: value, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({
      target: [consents.userId, consents.clientId, consents.workspaceId],
      set: { scopes: value, updatedAt: now },
    })
    .run();
}

/** The member's scope ceiling set by a workspace admin (null column = no ceiling). */
export function memberScopeCeiling(db: Db, workspaceId: string, userId: string): Set<Scope> | null {
  const row = db
    .select({ maxScopes: workspaceMembers.maxScopes })
    .from(workspaceMembers)
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)))
    .get();
  return row?.maxScopes == null ? null : new Set(parseScopes(row.maxScopes));
}
