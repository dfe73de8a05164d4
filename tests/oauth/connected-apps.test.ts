import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authorizeCode,
  exchangeCode,
  freshAddress,
  grantForClient,
  mcpStatus,
  pkce,
  registerClient,
  revokeRequest,
  type SignedInUser,
  signedInUser,
  tokenRequest,
} from '../helpers/oauth-http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Grants and token families (DESIGN §4): one connected app per (person, client, workspace), one token
 * family per authorization (device) inside it. Re-authorizing renews the app, never revokes a device.
 */
let server: TestServer;
let user: SignedInUser;
beforeAll(async () => {
  server = await startTestServer({ env: { TRUST_PROXY: 'true' } });
  user = await signedInUser(server);
});
afterAll(async () => {
  await server?.close();
});

let apps = 0;
async function newApp(): Promise<{ clientId: string; name: string }> {
  apps += 1;
  const name = `Connected App ${apps}`;
  const { client_id } = await registerClient(server, { client_name: name }, freshAddress());
  return { clientId: client_id, name };
}

async function liveGrants(clientId: string): Promise<Array<{ id: string; scopes: string }>> {
  return (await server.sql.all(
    'SELECT id, scopes FROM oauth_grants WHERE client_id = ? AND user_id = ? AND revoked_at IS NULL',
    clientId,
    user.userId,
  )) as Array<{ id: string; scopes: string }>;
}

/** How many rows the person's "Connected apps" page shows for the app. */
async function rowsOnAppsPage(name: string): Promise<number> {
  const res = await fetch(`${server.url}/account/apps`, { headers: { cookie: user.cookie } });
  expect(res.status).toBe(200);
  return (await res.text()).split(`aria-label="Revoke ${name}"`).length - 1;
}

function refresh(clientId: string, refreshToken: string) {
  return tokenRequest(server, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: clientId,
  });
}

describe('One connected-app row per (person, client, workspace)', () => {
  it('re-authorizing the same app renews its one grant: the connected-apps page lists it once', async () => {
    const app = await newApp();
    for (let i = 0; i < 3; i++) await grantForClient(server, user, app.clientId);
    expect(await liveGrants(app.clientId)).toHaveLength(1);
    expect(await rowsOnAppsPage(app.name)).toBe(1);
  });

  it('re-authorizing never revokes other devices: every earlier token pair keeps working', async () => {
    const app = await newApp();
    const devices = [];
    for (let i = 0; i < 3; i++) devices.push(await grantForClient(server, user, app.clientId));
    for (const device of devices) {
      expect(await mcpStatus(server, device.accessToken)).toBe(200);
      expect((await refresh(app.clientId, device.refreshToken)).status).toBe(200);
    }
  });

  it('each device keeps the permissions of its own authorization; the app lists the union', async () => {
    const app = await newApp();
    const full = await grantForClient(server, user, app.clientId);
    // Another device of the same app asks for less (consent is remembered, no page): nothing narrows.
    const narrow = await grantForClient(server, user, app.clientId, { scope: 'searches:read' });
    expect(narrow.scope).toBe('searches:read');
    expect((await liveGrants(app.clientId)).map((g) => g.scopes)).toEqual([
      'searches:read searches:write agent:read agent:write account:read account:write',
    ]);
    const refreshed = await refresh(app.clientId, full.refreshToken);
    expect(refreshed.body.scope).toBe(
      'searches:read searches:write agent:read agent:write account:read account:write',
    );
    const narrowRefreshed = await refresh(app.clientId, narrow.refreshToken);
    expect(narrowRefreshed.body.scope).toBe('searches:read');
  });

  it('devices authorizing at the same moment share one grant (one statement decides), each with its own family', async () => {
    const app = await newApp();
    await grantForClient(server, user, app.clientId); // consent once; the codes below are remembered
    const codes = [];
    for (let i = 0; i < 6; i++) {
      const { verifier, challenge } = pkce();
      const { code } = await authorizeCode(server, user, { clientId: app.clientId, challenge });
      codes.push({ code, verifier });
    }
    const exchanged = await Promise.all(
      codes.map(({ code, verifier }) => exchangeCode(server, { clientId: app.clientId, code, verifier })),
    );
    expect(exchanged.map((r) => r.status)).toEqual(Array(6).fill(200));
    const [grant] = await liveGrants(app.clientId);
    expect(await liveGrants(app.clientId)).toHaveLength(1);
    const families = (await server.sql.get(
      'SELECT count(DISTINCT family_id) AS n FROM oauth_tokens WHERE grant_id = ?',
      grant?.id,
    )) as { n: number };
    expect(families.n).toBe(7);
  });

  it('a device signing out (RFC 7009 §2.1, its refresh token revoked) ends its family only; the last one ends the app', async () => {
    const app = await newApp();
    const laptop = await grantForClient(server, user, app.clientId);
    const desktop = await grantForClient(server, user, app.clientId);
    expect(
      (await revokeRequest(server, { token: laptop.refreshToken, client_id: app.clientId })).status,
    ).toBe(200);
    expect(await mcpStatus(server, laptop.accessToken)).toBe(401);
    expect(await mcpStatus(server, desktop.accessToken)).toBe(200);
    expect(await liveGrants(app.clientId)).toHaveLength(1);
    expect(await rowsOnAppsPage(app.name)).toBe(1);

    expect(
      (await revokeRequest(server, { token: desktop.refreshToken, client_id: app.clientId })).status,
    ).toBe(200);
    expect(await mcpStatus(server, desktop.accessToken)).toBe(401);
    expect(await liveGrants(app.clientId)).toHaveLength(0);
    expect(await rowsOnAppsPage(app.name)).toBe(0);
  });

  it('RFC 6749 §4.1.2: a replayed code revokes the family it issued, not the app’s other devices', async () => {
    const app = await newApp();
    const other = await grantForClient(server, user, app.clientId);
    const { verifier, challenge } = pkce();
    const { code } = await authorizeCode(server, user, { clientId: app.clientId, challenge });
    const first = await exchangeCode(server, { clientId: app.clientId, code, verifier });
    expect(first.status).toBe(200);
    const replay = await exchangeCode(server, { clientId: app.clientId, code, verifier });
    expect(replay.body.error).toBe('invalid_grant');
    expect(await mcpStatus(server, first.body.access_token as string)).toBe(401);
    expect(await mcpStatus(server, other.accessToken)).toBe(200);
    expect(await liveGrants(app.clientId)).toHaveLength(1);
  });

  it('revoking the connected app (its page) ends every device', async () => {
    const app = await newApp();
    const devices = [
      await grantForClient(server, user, app.clientId),
      await grantForClient(server, user, app.clientId),
    ];
    const [grant] = await liveGrants(app.clientId);
    const page = await fetch(`${server.url}/account/apps`, { headers: { cookie: user.cookie } });
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
    const res = await fetch(`${server.url}/account/apps/revoke`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie: user.cookie,
        'content-type': 'application/x-www-form-urlencoded',
        origin: new URL(server.url).origin,
        'sec-fetch-site': 'same-origin',
      },
      body: new URLSearchParams({ csrf, grant: grant?.id ?? '' }),
    });
    expect(res.status).toBe(303);
    for (const device of devices) expect(await mcpStatus(server, device.accessToken)).toBe(401);
    expect(await liveGrants(app.clientId)).toHaveLength(0);
  });
});
