import { and, desc, eq } from 'drizzle-orm';
import { first, type Store } from '../db/store/index.js';
import { formatScopes, parseScopes, type Scope } from './scopes.js';

/** A remembered consent: where, and the toolsets and read-only switch chosen with it. */
export interface RememberedConsent {
  workspaceId: string;
  toolsets: string | null;
  readOnly: boolean;
}

/**
 * A remembered consent that covers the requested scopes in a workspace the user still belongs to and
 * that still has credentials: the most recently confirmed one. Scopes that grew mean asking again.
 */
export async function rememberedWorkspace(
  db: Store,
  userId: string,
  clientId: string,
  scopes: readonly Scope[],
): Promise<RememberedConsent | null> {
  const { consents, upstreamCredentials, workspaceMembers } = db.t;
  const rows = await db.orm
    .select({
      workspaceId: consents.workspaceId,
      scopes: consents.scopes,
      toolsets: consents.toolsets,
      readOnly: consents.readOnly,
    })
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
    .orderBy(desc(consents.updatedAt));
  for (const row of rows) {
    const given = new Set(parseScopes(row.scopes));
    if (scopes.every((s) => given.has(s)))
      return { workspaceId: row.workspaceId, toolsets: row.toolsets, readOnly: row.readOnly };
  }
  return null;
}

/** Every scope the person has consented to for this client, in any workspace; null when never. */
export async function consentedScopes(
  db: Store,
  userId: string,
  clientId: string,
): Promise<Set<Scope> | null> {
  const { consents } = db.t;
  const rows = await db.orm
    .select({ scopes: consents.scopes })
    .from(consents)
    .where(and(eq(consents.userId, userId), eq(consents.clientId, clientId)));
  return rows.length ? new Set(rows.flatMap((r) => parseScopes(r.scopes))) : null;
}

/**
 * Whether the person has ever consented to this client (in any workspace). Such a client is trusted
 * with /authorize error redirects (RFC 9700 §4.11.2): the person chose to connect it, so its redirect
 * URI is not an attacker's open redirector. Pre-registered clients would be trusted too; this server
 * has none (every client registers itself or is a metadata document anyone can publish).
 */
export async function hasConsentedTo(db: Store, userId: string, clientId: string): Promise<boolean> {
  const { consents } = db.t;
  const row = await first(
    db.orm
      .select({ userId: consents.userId })
      .from(consents)
      .where(and(eq(consents.userId, userId), eq(consents.clientId, clientId)))
      .limit(1),
  );
  return row !== undefined;
}

export interface ConsentChoice {
  userId: string;
  clientId: string;
  workspaceId: string;
  scopes: readonly Scope[];
  /** The tools chosen at consent (null toolsets: every toolset); default every tool, not read-only. */
  view?: { toolsets: string | null; readOnly: boolean };
}

export async function rememberConsent(db: Store, choice: ConsentChoice, now = Date.now()): Promise<void> {
  const { userId, clientId, workspaceId, scopes, view = { toolsets: null, readOnly: false } } = choice;
  const { consents } = db.t;
  const value = formatScopes(scopes);
  const chosen = { toolsets: view.toolsets, readOnly: view.readOnly };
  await db.orm
    .insert(consents)
    .values({ userId, clientId, workspaceId, scopes: value, ...chosen, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({
      target: [consents.userId, consents.clientId, consents.workspaceId],
      set: { scopes: value, ...chosen, updatedAt: now },
    });
}

/** The member's scope ceiling set by a workspace admin (null column = no ceiling). */
export async function memberScopeCeiling(
  db: Store,
  workspaceId: string,
  userId: string,
): Promise<Set<Scope> | null> {
  const { workspaceMembers } = db.t;
  const row = await first(
    db.orm
      .select({ maxScopes: workspaceMembers.maxScopes })
      .from(workspaceMembers)
      .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId))),
  );
  return row?.maxScopes == null ? null : new Set(parseScopes(row.maxScopes));
}

/** The toolsets and read-only switch last chosen for this client, in any workspace; null when never. */
export async function lastChosenView(
  db: Store,
  userId: string,
  clientId: string,
): Promise<{ toolsets: string | null; readOnly: boolean } | null> {
  const { consents } = db.t;
  const row = await first(
    db.orm
      .select({ toolsets: consents.toolsets, readOnly: consents.readOnly })
      .from(consents)
      .where(and(eq(consents.userId, userId), eq(consents.clientId, clientId)))
      .orderBy(desc(consents.updatedAt))
      .limit(1),
  );
  return row ?? null;
}
