import { getTableColumns } from 'drizzle-orm';
import { expect } from 'vitest';
import { oauthTokens } from '../../src/db/schema/oauth.js';
import { hashToken } from '../../src/security/tokens.js';
import type { OAuthFixture } from './oauth-fixture.js';
import { authorizeCode, pkce } from './oauth-http.js';
import type { RawSql } from './raw-sql.js';

/** A fresh code for the fixture's client (consent is remembered after the first), with its verifier. */
export async function freshCode(fx: OAuthFixture, options: { scope?: string; client?: string } = {}) {
  const p = pkce();
  const { code } = await authorizeCode(fx.server, fx.user, {
    clientId: options.client ?? fx.clientId,
    challenge: p.challenge,
    scope: options.scope ?? null,
  });
  return { code, verifier: p.verifier };
}

/** How many grants the fixture's server holds. */
export async function grantCount(fx: OAuthFixture): Promise<number> {
  return ((await fx.server.sql.get('SELECT count(*) AS n FROM oauth_grants')) as { n: number }).n;
}

/** Token responses must not be cached (RFC 6749 §5.1). */
export function expectNoStore(headers: Headers) {
  expect(headers.get('cache-control')).toContain('no-store');
}

/**
 * Time passes for a token family: every instant recorded on its tokens (issued, rotated, grace used,
 * forked: whichever the schema has) moves `ms` into the past.
 */
export async function ageTokenFamily(sql: RawSql, refreshToken: string, ms: number): Promise<void> {
  const instants = Object.values(getTableColumns(oauthTokens))
    .map((c) => c.name)
    .filter((name) => name.endsWith('_at') && name !== 'expires_at' && name !== 'revoked_at');
  await sql.run(
    `UPDATE oauth_tokens SET ${instants.map((c) => `${c} = ${c} - ${Number(ms)}`).join(', ')}
     WHERE family_id = (SELECT family_id FROM oauth_tokens WHERE token_hash = ?)`,
    hashToken(refreshToken),
  );
}
