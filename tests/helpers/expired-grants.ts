import type { SignedInUser } from './oauth-http.js';
import type { TestServer } from './server.js';

/** Grants and tokens for a housekeeping pass to delete, and what it left (tests/housekeeping). */
const DAY = 24 * 3600 * 1000;

const count = async (server: TestServer, query: string) =>
  Number(((await server.sql.get(query)) as { n: number | string }).n);

/**
 * `n` dead grants (created 40 days before `now`, their one token expired 2 days before: both go) and
 * `n` live ones (a token expired 2 days before, which goes, and a live one, which keeps the grant), ids
 * prefixed `tag`. Numbers and ids are written into the SQL: a parameter in an INSERT's SELECT list has
 * no type on PostgreSQL.
 */
export async function seedExpiredGrants(
  server: TestServer,
  user: SignedInUser,
  tag: string,
  n: number,
  now: number,
): Promise<void> {
  const rows = `WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ${n})`;
  const old = now - 40 * DAY;
  const expired = now - 2 * DAY;
  for (const state of ['dead', 'live']) {
    await server.sql.run(
      `${rows} INSERT INTO oauth_grants (id, user_id, workspace_id, client_id, scopes, resource, created_at)
       SELECT '${tag}-${state}-' || i, '${user.userId}', '${user.workspaceId}', '${tag}-${state}-client-' || i, 'mcp',
              '${server.url}/mcp', ${old} FROM k`,
    );
    await server.sql.run(
      `${rows} INSERT INTO oauth_tokens (token_hash, grant_id, family_id, kind, created_at, expires_at)
       SELECT '${tag}-${state}-old-' || i, '${tag}-${state}-' || i, '${tag}-${state}-' || i, 'access', ${old}, ${expired} FROM k`,
    );
  }
  await server.sql.run(
    `${rows} INSERT INTO oauth_tokens (token_hash, grant_id, family_id, kind, created_at, expires_at)
     SELECT '${tag}-live-new-' || i, '${tag}-live-' || i, '${tag}-live-' || i, 'refresh', ${now}, ${now + 30 * DAY} FROM k`,
  );
}

/** What is left of seedExpiredGrants's rows. */
export async function leftOf(server: TestServer, tag: string) {
  return {
    grants: await count(server, `SELECT count(*) AS n FROM oauth_grants WHERE id LIKE '${tag}-%'`),
    liveGrants: await count(server, `SELECT count(*) AS n FROM oauth_grants WHERE id LIKE '${tag}-live-%'`),
    tokens: await count(server, `SELECT count(*) AS n FROM oauth_tokens WHERE token_hash LIKE '${tag}-%'`),
    liveTokens: await count(
      server,
      `SELECT count(*) AS n FROM oauth_tokens WHERE token_hash LIKE '${tag}-live-new-%'`,
    ),
    /** Dead grants whose token is gone but which are still there (a batch deletes both together). */
    emptyDeadGrants: await count(
      server,
      `SELECT count(*) AS n FROM oauth_grants g WHERE g.id LIKE '${tag}-dead-%'
       AND NOT EXISTS (SELECT 1 FROM oauth_tokens t WHERE t.grant_id = g.id)`,
    ),
  };
}
