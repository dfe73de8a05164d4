import { expect } from 'vitest';
import type { OAuthFixture } from './oauth-fixture.js';
import { authorizeCode, pkce } from './oauth-http.js';

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
