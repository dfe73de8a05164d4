import { and, eq, isNull } from 'drizzle-orm';
import { Hono } from 'hono';
import { first, grantSubject } from '../db/store/index.js';
import type { AppEnv } from '../http/env.js';
import { hashToken } from '../security/tokens.js';
import { authenticateClient } from './client-auth.js';
import { anyOriginCors } from './cors.js';
import { clientLookup, type OAuthDeps } from './deps.js';
import { refuse } from './errors.js';
import { readOAuthParameters, required } from './form.js';
import { revokeFamily } from './grants.js';

/**
 * POST /revoke (RFC 7009). Revoking a refresh token ends the token family of that authorization (§2.1:
 * the server SHOULD also invalidate the access tokens of the same grant), not the app's other devices;
 * the connected app ends with its last family. Revoking an access token ends that token. Unknown
 * tokens, and tokens of other clients, get the same 200 so the endpoint cannot be used to probe.
 */
export function revokeRoutes(deps: OAuthDeps) {
  const app = new Hono<AppEnv>();
  app.use('/revoke', anyOriginCors({ methods: ['POST'], headers: ['Content-Type', 'Authorization'] }));
  app.post('/revoke', async (c) => {
    try {
      const form = await readOAuthParameters(c);
      const token = required(form, 'token');
      // token_type_hint is only a hint (RFC 7009 §2.1): the lookup covers every kind of token, so an
      // unknown or wrong hint changes nothing.
      const client = await authenticateClient(c, deps.db, form, clientLookup(deps, false, c));
      const { oauthGrants, oauthTokens } = deps.db.t;
      const row = await first(
        deps.db.orm
          .select({ token: oauthTokens, clientId: oauthGrants.clientId })
          .from(oauthTokens)
          .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
          .where(eq(oauthTokens.tokenHash, hashToken(token))),
      );
      if (row && row.clientId === client.clientId) {
        if (row.token.kind === 'refresh') await revokeFamily(deps.db, row.token, 'revoked_by_client');
        else {
          await deps.db.orm
            .update(oauthTokens)
            .set({ revokedAt: Date.now() })
            .where(and(eq(oauthTokens.tokenHash, row.token.tokenHash), isNull(oauthTokens.revokedAt)));
          await deps.db.invalidate(grantSubject(row.token.grantId));
        }
      }
      return c.body(null, 200, { 'Cache-Control': 'no-store' });
    } catch (error) {
      return refuse(c, error, 'revoke');
    }
  });
  return app;
}
