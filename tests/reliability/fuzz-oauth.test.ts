import fc from 'fast-check';
import { describe, it } from 'vitest';
import {
  anyText,
  authorization,
  contentType,
  formBody,
  formOf,
  OAUTH_KEYS,
} from '../helpers/fuzz-arbitraries.js';
import { hostileInput, RUNS } from '../helpers/hostile-input.js';

/**
 * Hostile input, property-based (fast-check), on the OAuth endpoints: /token, /revoke, /register,
 * /authorize and its decision, signed in and out. Never a 5xx, a crash or an issued token.
 */
const hi = hostileInput();

describe('fuzzing never gives a 5xx, a crash or a token', () => {
  it('POST /token', async () => {
    await fc.assert(
      fc.asyncProperty(
        formBody(OAUTH_KEYS, hi.oauthValue()),
        contentType,
        authorization,
        async (body, type, auth) => {
          await hi.send('/token', '/token', { method: 'POST', headers: hi.headersOf(type, auth), body });
        },
      ),
      { numRuns: RUNS * 2 },
    );
  });

  it('POST /revoke', async () => {
    await fc.assert(
      fc.asyncProperty(
        formBody(OAUTH_KEYS, hi.oauthValue()),
        contentType,
        authorization,
        async (body, type, auth) => {
          await hi.send('/revoke', '/revoke', { method: 'POST', headers: hi.headersOf(type, auth), body });
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('POST /register', async () => {
    const metadata = fc.dictionary(
      fc.oneof(
        fc.constantFrom(
          'client_name',
          'redirect_uris',
          'grant_types',
          'response_types',
          'token_endpoint_auth_method',
          'application_type',
          'scope',
          'client_uri',
          'logo_uri',
          'software_id',
        ),
        fc.string({ maxLength: 10 }),
      ),
      fc.oneof(
        fc.jsonValue({ maxDepth: 3 }),
        fc.array(
          fc.oneof(
            anyText,
            fc.webUrl(),
            fc.constantFrom('http://localhost/cb', 'myapp:/cb', 'javascript:alert(1)'),
          ),
        ),
      ),
      { maxKeys: 8 },
    );
    const body = fc.oneof(
      metadata.map((m) => JSON.stringify(m)),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.string({ unit: 'binary', maxLength: 200 }),
    );
    await fc.assert(
      fc.asyncProperty(
        body,
        fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', ''),
        async (b, type) => {
          await hi.send('/register', '/register', {
            method: 'POST',
            headers: hi.headersOf(type, undefined),
            body: b,
          });
        },
      ),
      { numRuns: RUNS * 2 },
    );
  });

  it('GET /authorize and POST /authorize/decision (signed in and out)', async () => {
    await fc.assert(
      fc.asyncProperty(formOf(OAUTH_KEYS, hi.oauthValue()), fc.boolean(), async (query, signedIn) => {
        const qs = new URLSearchParams(query).toString();
        const cookie: Record<string, string> = signedIn ? { cookie: hi.user.cookie } : {};
        await hi.send('/authorize', `/authorize?${qs}`, { headers: hi.headersOf('', undefined, cookie) });
      }),
      { numRuns: RUNS },
    );
    await fc.assert(
      fc.asyncProperty(
        formBody(['csrf', 'request', 'workspace', 'decision'], hi.oauthValue()),
        fc.boolean(),
        async (body, signedIn) => {
          const origin = new URL(hi.server.url).origin;
          await hi.send('/authorize/decision', '/authorize/decision', {
            method: 'POST',
            headers: hi.headersOf('application/x-www-form-urlencoded', undefined, {
              origin,
              ...(signedIn ? { cookie: hi.user.cookie } : {}),
            }),
            body,
          });
        },
      ),
      { numRuns: RUNS },
    );
  });
  it('issued no token and is still healthy', async () => {
    await hi.expectNoTokenIssuedAndHealthy({ '/token': /400|401/ });
  });
});
