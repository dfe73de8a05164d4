import fc from 'fast-check';
import { describe, it } from 'vitest';
import { anyText, formOf } from '../helpers/fuzz-arbitraries.js';
import { hostileInput, RUNS } from '../helpers/hostile-input.js';

/**
 * Hostile input, property-based (fast-check), on the browser forms (/sign-in, /sign-up,
 * /account/credentials) and on POST /mcp JSON-RPC. Never a 5xx, a crash or an issued token.
 */
const hi = hostileInput();

describe('fuzzing never gives a 5xx, a crash or a token', () => {
  it('the forms: /sign-in, /sign-up, /account/credentials', async () => {
    // A signed-out browser's CSRF cookie and token, so some posts pass the CSRF check.
    const page = await fetch(`${hi.server.url}/sign-in`);
    const cookie = page.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
    const account = await fetch(`${hi.server.url}/account/credentials`, {
      headers: { cookie: hi.user.cookie },
    });
    const sessionCsrf = /name="csrf" value="([^"]+)"/.exec(await account.text())?.[1] ?? '';
    const value = fc.oneof(
      anyText,
      fc.emailAddress(),
      fc.constantFrom(
        'correct horse battery staple',
        hi.user.workspaceId,
        'sandbox',
        'save',
        hi.sandbox.token,
        '/account',
        '//evil.example',
      ),
    );
    const keys = [
      'email',
      'password',
      'next',
      'invite',
      'csrf',
      'workspace',
      'token',
      'upstream_user_id',
      'action',
    ];
    const origin = new URL(hi.server.url).origin;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/sign-in', '/sign-up', '/account/credentials'),
        formOf(keys, value),
        fc.record(
          { email: fc.emailAddress(), password: fc.string({ minLength: 1, maxLength: 40 }) },
          { requiredKeys: [] },
        ),
        fc.oneof({ arbitrary: fc.constant(true), weight: 3 }, { arbitrary: fc.constant(false), weight: 1 }),
        fc.oneof(
          { arbitrary: fc.constant(origin), weight: 4 },
          { arbitrary: fc.constantFrom('https://evil.example', ''), weight: 1 },
        ),
        async (path, form, plausible, withCsrf, originHeader) => {
          const signedIn = path === '/account/credentials';
          const fields: Record<string, string> = { ...form, ...plausible };
          if (withCsrf) fields.csrf = signedIn ? sessionCsrf : csrf;
          await hi.send(path, path, {
            method: 'POST',
            headers: hi.headersOf('application/x-www-form-urlencoded', undefined, {
              cookie: signedIn ? hi.user.cookie : cookie,
              ...(originHeader ? { origin: originHeader } : {}),
            }),
            body: new URLSearchParams(fields).toString(),
          });
        },
      ),
      { numRuns: RUNS * 2 },
    );
  });

  it('POST /mcp JSON-RPC', async () => {
    const toolNames = fc.constantFrom(
      'submit_keyword_search',
      'get_keyword_search',
      'get_keyword_searches',
      'usage',
      'start_agent_run',
      'get_integration_setup',
      'no_such_tool',
    );
    const params = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.record({
        name: fc.oneof(toolNames, anyText),
        arguments: fc.oneof(
          fc.jsonValue({ maxDepth: 3 }),
          fc.record(
            {
              query: anyText,
              search_id: fc.oneof(fc.integer(), anyText, fc.double()),
              platforms: fc.array(fc.oneof(anyText, fc.constantFrom('twitter', 'linkedin', 'reddit'))),
              max_post: fc.oneof(fc.integer(), fc.double()),
              start_date: anyText,
            },
            { requiredKeys: [] },
          ),
        ),
        _meta: fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }),
      }),
    );
    const message = fc.record(
      {
        jsonrpc: fc.oneof(fc.constant('2.0'), fc.jsonValue({ maxDepth: 1 })),
        id: fc.oneof(fc.integer(), anyText, fc.constant(null), fc.jsonValue({ maxDepth: 1 })),
        method: fc.oneof(
          fc.constantFrom(
            'initialize',
            'tools/list',
            'tools/call',
            'ping',
            'notifications/initialized',
            'notifications/cancelled',
            'resources/list',
            'server/discover',
          ),
          anyText,
        ),
        params,
      },
      { requiredKeys: [] },
    );
    const wellFormed = fc.record({
      jsonrpc: fc.constant('2.0'),
      id: fc.nat(),
      method: fc.constantFrom('initialize', 'tools/list', 'tools/call', 'ping'),
      params,
    });
    const body = fc.oneof(
      { arbitrary: wellFormed.map((m) => JSON.stringify(m)), weight: 3 },
      message.map((m) => JSON.stringify(m)),
      fc.array(message, { maxLength: 4 }).map((m) => JSON.stringify(m)),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.string({ unit: 'binary', maxLength: 200 }),
    );
    const headers = fc.oneof(
      fc.constant({ accept: 'application/json, text/event-stream' }),
      fc.constant({ accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' }),
      fc.record(
        {
          'mcp-protocol-version': fc.oneof(
            fc.constantFrom('2026-07-28', '2025-06-18', '2025-11-25', '1999-01-01'),
            anyText,
          ),
          'mcp-method': fc.oneof(fc.constantFrom('tools/list', 'tools/call'), anyText),
          accept: fc.constantFrom(
            'application/json, text/event-stream',
            'application/json',
            'text/event-stream',
            '*/*',
          ),
          'mcp-session-id': anyText,
        },
        { requiredKeys: [] },
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        body,
        headers,
        fc.oneof(
          { arbitrary: fc.constant('application/json'), weight: 4 },
          fc.constantFrom('text/plain', ''),
        ),
        fc.oneof({ arbitrary: fc.constant(true), weight: 4 }, { arbitrary: fc.constant(false), weight: 1 }),
        async (b, h, type, authed) => {
          const clean = Object.fromEntries(
            Object.entries(h).map(([k, v]) => [k, String(v).replace(/[^\t\x20-\x7e]/g, '')]),
          );
          await hi.send('/mcp', '/mcp', {
            method: 'POST',
            headers: hi.headersOf(type, authed ? `Bearer ${hi.bearer}` : undefined, clean),
            body: b,
          });
        },
      ),
      { numRuns: RUNS * 3 },
    );
  });
  it('issued no token and is still healthy', async () => {
    await hi.expectNoTokenIssuedAndHealthy({ '/mcp': /200/, '/sign-in': /401/ });
  });
});
