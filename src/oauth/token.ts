import { Hono } from 'hono';
import { atomically } from '../db/store/index.js';
import type { AppEnv } from '../http/env.js';
import { metrics } from '../metrics/index.js';
import { authenticateClient } from './client-auth.js';
import { touchClient } from './clients/repository.js';
import type { OAuthClient } from './clients/types.js';
import { claimCode, findCode } from './codes.js';
import { anyOriginCors } from './cors.js';
import { clientLookup, type OAuthDeps } from './deps.js';
import { OAuthError, refuse } from './errors.js';
import { readOAuthParameters, required } from './form.js';
import { type IssuedTokens, issueGrantForCode, revokeFamily } from './grants.js';
import { verifyPkce } from './pkce.js';
import { refreshGrant } from './refresh.js';
import { resourceView } from './resource-variants.js';

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/** POST /token (RFC 6749 §3.2, §4.1.3, §6; OAuth 2.1 §4.1.3, §4.3). */
export function tokenRoutes(deps: OAuthDeps) {
  const app = new Hono<AppEnv>();
  app.use('/token', anyOriginCors({ methods: ['POST'], headers: ['Content-Type', 'Authorization'] }));
  app.post('/token', async (c) => {
    try {
      const form = await readOAuthParameters(c);
      const grantType = required(form, 'grant_type');
      const client = await authenticateClient(c, deps.db, form, clientLookup(deps, false, c));
      await touchClient(deps.db, client);
      const tokens =
        grantType === 'authorization_code'
          ? await exchangeCode(deps, client, form)
          : grantType === 'refresh_token'
            ? await refresh(deps, client, form)
            : unsupported(grantType);
      metrics.tokensIssued.labels(grantType).inc();
      return c.json(tokens, 200, NO_STORE);
    } catch (error) {
      return refuse(c, error, 'token');
    }
  });
  return app;
}

function unsupported(grantType: string): never {
  throw new OAuthError(
    'unsupported_grant_type',
    `The grant type ${JSON.stringify(grantType.slice(0, 100))} is not supported.`,
  );
}

function accessTtlMs(deps: OAuthDeps) {
  return deps.config.oauth.accessTokenTtlSeconds * 1000;
}

async function exchangeCode(
  deps: OAuthDeps,
  client: OAuthClient,
  form: Map<string, string>,
): Promise<IssuedTokens> {
  const code = required(form, 'code');
  const verifier = form.get('code_verifier');
  // OAuth 2.1 §4.1.3: PKCE is required, so a missing verifier is a malformed request.
  if (!verifier)
    throw new OAuthError('invalid_request', 'The parameter code_verifier is missing (PKCE is required).');
  const row = await findCode(deps.db, code);
  const now = Date.now();
  if (!row || row.clientId !== client.clientId) {
    throw new OAuthError(
      'invalid_grant',
      'The authorization code is invalid or was issued to another client.',
    );
  }
  if (row.usedAt !== null) {
    await revokeWhatTheCodeIssued(deps, code, now);
    throw new OAuthError('invalid_grant', 'The authorization code was already used.');
  }
  if (row.expiresAt <= now) throw new OAuthError('invalid_grant', 'The authorization code has expired.');
  // OAuth 2.1 §4.1.3: redirect_uri is required, and identical, when the authorization request included
  // it (the code records whether it did); a client that omitted it there (one registered URI, RFC 6749
  // §3.1.2.3) may omit it here, and if it sends one anyway it must be the one the code went to.
  const redirectUri = form.get('redirect_uri');
  if (redirectUri === undefined && row.redirectUriSent) {
    throw new OAuthError(
      'invalid_request',
      'The parameter redirect_uri is missing: the authorization request sent one, so it must be repeated.',
    );
  }
  if (redirectUri !== undefined && redirectUri !== row.redirectUri) {
    throw new OAuthError(
      'invalid_grant',
      'redirect_uri does not match the one used in the authorization request.',
    );
  }
  if (!verifyPkce(verifier, row.codeChallenge)) {
    // Whoever presents a code with the wrong verifier is not the client that started the flow, or the
    // client is broken: either way the code is burned (one guess per code; RFC 7636 §4.6 only asks
    // that the exchange fail), and the real client starts a new authorization.
    await claimCode(deps.db, row.codeHash, now);
    throw new OAuthError(
      'invalid_grant',
      'The code_verifier does not match the code_challenge; the code can no longer be used. Start the authorization again.',
    );
  }
  const resource = form.get('resource');
  // A variant of the authorized resource (resource-variants.ts) names the same one.
  if (resource !== undefined && !resourceView(resource, row.resource)) {
    throw new OAuthError('invalid_target', 'The resource does not match the one that was authorized.');
  }
  // Claimed and exchanged in one transaction: whoever sees the code used also sees what it issued. A
  // concurrent exchange of the same code waits for this one's commit and then finds it used.
  const issued = await atomically(deps.db, async (tx) =>
    (await claimCode(tx, row.codeHash, now)) ? issueGrantForCode(tx, row, accessTtlMs(deps), now) : null,
  );
  if (!issued) {
    // Lost a race with a concurrent exchange of the same code: this one is its replay.
    await revokeWhatTheCodeIssued(deps, code, now);
    throw new OAuthError('invalid_grant', 'The authorization code was already used.');
  }
  return issued;
}

/**
 * RFC 6749 §4.1.2: a code used twice revokes the tokens it issued (their family). A code burned by a
 * wrong verifier issued nothing.
 */
async function revokeWhatTheCodeIssued(deps: OAuthDeps, code: string, now: number): Promise<void> {
  const row = await findCode(deps.db, code);
  if (!row?.grantId || !row.familyId) return;
  await revokeFamily(
    deps.db,
    { grantId: row.grantId, familyId: row.familyId },
    'authorization_code_replay',
    now,
  );
}

async function refresh(
  deps: OAuthDeps,
  client: OAuthClient,
  form: Map<string, string>,
): Promise<IssuedTokens> {
  const token = required(form, 'refresh_token');
  const resource = form.get('resource');
  if (resource !== undefined && !resourceView(resource, deps.config.resourceUrl)) {
    throw new OAuthError(
      'invalid_target',
      `The only resource this server issues tokens for is ${deps.config.resourceUrl}.`,
    );
  }
  const outcome = await refreshGrant(deps.db, {
    refreshToken: token,
    clientId: client.clientId,
    requestedScope: form.get('scope'),
    accessTtlMs: accessTtlMs(deps),
  });
  metrics.refreshes.labels(outcome.ok ? 'ok' : outcome.reason).inc();
  if (!outcome.ok && outcome.reason === 'reused') metrics.refreshReuseDetections.inc();
  if (outcome.ok) return outcome.tokens;
  if (outcome.reason === 'scope') {
    throw new OAuthError('invalid_scope', 'A refresh cannot add scopes that were not granted.');
  }
  const why = {
    unknown: 'The refresh token is invalid.',
    expired: 'The refresh token has expired. Sign in again.',
    revoked: 'The refresh token was revoked. Sign in again.',
    client_mismatch: 'The refresh token was issued to another client.',
    reused: 'The refresh token was already used; the session was ended for safety. Sign in again.',
  }[outcome.reason];
  if (outcome.reason === 'reused')
    deps.logger.warn({ clientId: client.clientId }, 'refresh token reuse: grant revoked');
  throw new OAuthError('invalid_grant', why);
}
