import { describe, expect, it } from 'vitest';
import { oauthFixture } from '../helpers/oauth-fixture.js';
import { freshAddress, tokenRequest } from '../helpers/oauth-http.js';

/**
 * A NUL character in input: SQLite text holds it, PostgreSQL text cannot (the query fails with SQLSTATE
 * 22021). Whatever the engine, such a request gets a 4xx with an error body, never a 500.
 */
const fx = oauthFixture({ client: true });
const NUL = '\u0000';

describe('a NUL character in a request', () => {
  it('in /token form fields: refused with a 4xx and an error body', async () => {
    const res = await tokenRequest(fx.server, {
      grant_type: 'refresh_token',
      refresh_token: `sim_rt_${NUL}abc`,
      client_id: `client${NUL}`,
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body.error).toBeTruthy();
  });

  it('in /authorize query parameters and a /register body: a 4xx, never a 500', async () => {
    const authorize = await fetch(
      `${fx.server.url}/authorize?${new URLSearchParams({ client_id: `x${NUL}y`, response_type: 'code' })}`,
      { headers: { cookie: fx.user.cookie }, redirect: 'manual' },
    );
    await authorize.arrayBuffer();
    expect(authorize.status).toBeGreaterThanOrEqual(400);
    expect(authorize.status).toBeLessThan(500);
    const register = await fetch(`${fx.server.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...freshAddress() },
      body: JSON.stringify({ client_name: `App${NUL}`, redirect_uris: ['http://localhost:3000/callback'] }),
    });
    await register.arrayBuffer();
    expect(register.status).toBeLessThan(500);
  });

  it('logged no unhandled error', () => {
    expect(fx.server.logs.filter((l) => l.msg === 'unhandled error')).toEqual([]);
  });
});
