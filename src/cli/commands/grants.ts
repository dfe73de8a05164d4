import { and, desc, eq, isNull, type SQL, sql } from 'drizzle-orm';
import { first, type Store } from '../../db/store/index.js';
import { revokeGrant } from '../../oauth/grants.js';
import { CliError, type CliIo, withDatabase, writeLine } from '../context.js';
import { findUserByEmail } from './users.js';

export interface GrantFilter {
  user?: string;
  client?: string;
  grant?: string;
}

export type GrantStatus = 'active' | 'expired' | 'revoked';

interface GrantRow {
  id: string;
  userEmail: string;
  clientId: string;
  clientName: string | null;
  workspace: string;
  scopes: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
  revokedReason: string | null;
  liveRefresh: boolean;
}

/** The WHERE clause for the filter, after checking that the user/client it names exists. */
async function whereFor(db: Store, filter: GrantFilter): Promise<SQL> {
  const { oauthClients, oauthGrants } = db.t;
  const parts: SQL[] = [];
  if (filter.user !== undefined)
    parts.push(eq(oauthGrants.userId, (await findUserByEmail(db, filter.user)).id));
  if (filter.client !== undefined) {
    const known =
      (await first(
        db.orm.select({ id: oauthClients.id }).from(oauthClients).where(eq(oauthClients.id, filter.client)),
      )) ??
      (await first(
        db.orm
          .select({ id: oauthGrants.id })
          .from(oauthGrants)
          .where(eq(oauthGrants.clientId, filter.client))
          .limit(1),
      ));
    if (!known) throw new CliError(`no client with client_id ${filter.client}`);
    parts.push(eq(oauthGrants.clientId, filter.client));
  }
  if (filter.grant !== undefined) parts.push(eq(oauthGrants.id, filter.grant));
  const where = and(...parts);
  if (!where) throw new CliError('say whose grants: --user <email>, --client <client_id> or --grant <id>');
  return where;
}

function selectGrants(db: Store, where: SQL, now: number): Promise<GrantRow[]> {
  const { oauthClients, oauthGrants, users, workspaces } = db.t;
  return db.orm
    .select({
      id: oauthGrants.id,
      userEmail: users.email,
      clientId: oauthGrants.clientId,
      clientName: oauthClients.clientName,
      workspace: workspaces.name,
      scopes: oauthGrants.scopes,
      createdAt: oauthGrants.createdAt,
      lastUsedAt: oauthGrants.lastUsedAt,
      revokedAt: oauthGrants.revokedAt,
      revokedReason: oauthGrants.revokedReason,
      // A grant without a live refresh token can no longer be used, even if nobody revoked it. EXISTS is
      // a boolean on PostgreSQL and 0/1 on SQLite: mapWith makes it a boolean on both.
      liveRefresh: sql<boolean>`exists (select 1 from oauth_tokens t where t.grant_id = ${oauthGrants.id}
        and t.kind = 'refresh' and t.revoked_at is null and t.expires_at > ${now})`.mapWith(Boolean),
    })
    .from(oauthGrants)
    .innerJoin(users, eq(users.id, oauthGrants.userId))
    .innerJoin(workspaces, eq(workspaces.id, oauthGrants.workspaceId))
    .leftJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientId))
    .where(where)
    .orderBy(desc(oauthGrants.createdAt), desc(oauthGrants.id));
}

function statusOf(row: GrantRow): GrantStatus {
  if (row.revokedAt !== null) return 'revoked';
  return row.liveRefresh ? 'active' : 'expired';
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export async function listGrantsCommand(
  io: CliIo,
  filter: GrantFilter & { all?: boolean; json?: boolean },
): Promise<void> {
  await withDatabase(io, async (db) => {
    const rows = (await selectGrants(db, await whereFor(db, filter), Date.now()))
      .map((row) => ({ row, status: statusOf(row) }))
      .filter(({ status }) => filter.all || status !== 'revoked');
    if (filter.json) {
      const out = rows.map(({ row, status }) => ({
        id: row.id,
        status,
        user: row.userEmail,
        clientId: row.clientId,
        clientName: row.clientName,
        workspace: row.workspace,
        scopes: row.scopes.split(' ').filter(Boolean),
        createdAt: iso(row.createdAt),
        lastUsedAt: iso(row.lastUsedAt),
        revokedAt: iso(row.revokedAt),
        revokedReason: row.revokedReason,
      }));
      writeLine(io.stdout, JSON.stringify(out, null, 2));
      return;
    }
    if (!rows.length) {
      writeLine(io.stdout, filter.all ? 'no grants' : 'no grants (add --all to include revoked ones)');
      return;
    }
    for (const { row, status } of rows) {
      const reason = status === 'revoked' && row.revokedReason ? ` (${row.revokedReason})` : '';
      writeLine(io.stdout, `${row.id}  ${status}${reason}`);
      writeLine(io.stdout, `  user ${row.userEmail}  workspace ${row.workspace}`);
      writeLine(io.stdout, `  client ${row.clientName ? `${row.clientName} ` : ''}(${row.clientId})`);
      writeLine(io.stdout, `  scopes ${row.scopes}`);
      writeLine(io.stdout, `  created ${iso(row.createdAt)}  last used ${iso(row.lastUsedAt) ?? 'never'}`);
    }
  });
}

export async function revokeGrantsCommand(io: CliIo, filter: GrantFilter): Promise<void> {
  await withDatabase(io, async (db) => {
    const { oauthGrants } = db.t;
    const where = await whereFor(db, filter);
    const ids = (
      await db.orm
        .select({ id: oauthGrants.id })
        .from(oauthGrants)
        .where(and(where, isNull(oauthGrants.revokedAt)))
    ).map((r) => r.id);
    if (filter.grant !== undefined && !ids.length) {
      const exists = await first(db.orm.select({ id: oauthGrants.id }).from(oauthGrants).where(where));
      if (!exists) throw new CliError(`no grant with id ${filter.grant}`);
    }
    const now = Date.now();
    // revokeGrant revokes every token of the grant and writes grant_revoked to the audit trail.
    for (const id of ids) await revokeGrant(db, id, 'admin_cli', now);
    writeLine(
      io.stdout,
      `revoked ${ids.length} grant${ids.length === 1 ? '' : 's'}; their access and refresh tokens stop working now`,
    );
  });
}
