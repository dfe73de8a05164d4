import { describe, expect, it } from 'vitest';
import { oauthFixture } from '../helpers/oauth-fixture.js';
import {
  authorizeCode,
  exchangeCode,
  freshAddress,
  grantForClient,
  mcpStatus,
  pkce,
  registerClient,
  revokeRequest,
  tokenRequest,
} from '../helpers/oauth-http.js';

const fx = oauthFixture();

let apps = 0;
async function newApp(): Promise<{ clientId: string; name: string }> {
  apps += 1;
  const name = `Connected App ${apps}`;
  const { client_id } = await registerClient(fx.server, { client_name: name }, freshAddress());
  return { clientId: client_id, name };
}

async function liveGrants(clientId: string): Promise<Array<{ id: string; scopes: string }>> {
  return (await fx.server.sql.all(
    'SELECT id, scopes FROM oauth_grants WHERE client_id = ? AND user_id = ? AND revoked_at IS NULL',
    clientId,
    fx.user.userId,
  )) as Array<{ id: string; scopes: string }>;
}

/** How many rows the person's "Connected apps" page shows for the app. */
async function rowsOnAppsPage(name: string): Promise<number> {
  const res = await fetch(`${fx.server.url}/account/apps`, { headers: { cookie: fx.user.cookie } });
  expect(res.status).toBe(200);
  return (await res.text()).split(`aria-label="Revoke ${name}"`).length - 1;
}

function refresh(clientId: string, refreshToken: string) {
  return tokenRequest(fx.server, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: clientId,
  });
}

describe('One connected-app row per (person, client, workspace)', () => {
  it('re-authorizing the same app renews its one grant: the connected-apps page lists it once', async () => {
    const app = await newApp();
    for (let i = 0; i < 3; i++) await grantForClient(fx.server, fx.user, app.clientId);
    expect(await liveGrants(app.clientId)).toHaveLength(1);
    expect(await rowsOnAppsPage(app.name)).toBe(1);
  });

  it('re-authorizing never revokes other devices: every earlier token pair keeps working', async () => {
    const app = await newApp();
    const devices = [];
    for (let i = 0; i < 3; i++) devices.push(await grantForClient(fx.server, fx.user, app.clientId));
    for (const device of devices) {
      expect(await mcpStatus(fx.server, device.accessToken)).toBe(200);
      expect((await refresh(app.clientId, device.refreshToken)).status).toBe(200);
    }
  });

  it('each device keeps the permissions of its own authorization; the app lists the union', async () => {
    const app = await newApp();
    const full = await grantForClient(fx.server, fx.user, app.clientId);
    // Another device of the same app asks for less (consent is remembered, no page): nothing narrows.
    const narrow = await grantForClient(fx.server, fx.user, app.clientId, { scope: 'searches:read' });
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
    await grantForClient(fx.server, fx.user, app.clientId); // consent once; the codes below are remembered
    const codes = [];
    for (let i = 0; i < 6; i++) {
      const { verifier, challenge } = pkce();
      const { code } = await authorizeCode(fx.server, fx.user, { clientId: app.clientId, challenge });
      codes.push({ code, verifier });
    }
    const exchanged = await Promise.all(
      codes.map(({ code, verifier }) => exchangeCode(fx.server, { clientId: app.clientId, code, verifier })),
    );
    expect(exchanged.map((r) => r.status)).toEqual(Array(6).fill(200));
    const [grant] = await liveGrants(app.clientId);
    expect(await liveGrants(app.clientId)).toHaveLength(1);
    const families = (await fx.server.sql.get(
      'SELECT count(DISTINCT family_id) AS n FROM oauth_tokens WHERE grant_id = ?',
      grant?.id,
    )) as { n: number };
    expect(families.n).toBe(7);
  });

  it('a device signing out (RFC 7009 §2.1, its refresh token revoked) ends its family only; the last one ends the app', async () => {
    const app = await newApp();
    const laptop = await grantForClient(fx.server, fx.user, app.clientId);
    const desktop = await grantForClient(fx.server, fx.user, app.clientId);
    expect(
      (await revokeRequest(fx.server, { token: laptop.refreshToken, client_id: app.clientId })).status,
    ).toBe(200);
    expect(await mcpStatus(fx.server, laptop.accessToken)).toBe(401);
    expect(await mcpStatus(fx.server, desktop.accessToken)).toBe(200);
    expect(await liveGrants(app.clientId)).toHaveLength(1);
    expect(await rowsOnAppsPage(app.name)).toBe(1);

    expect(
      (await revokeRequest(fx.server, { token: desktop.refreshToken, client_id: app.clientId })).status,
    ).toBe(200);
    expect(await mcpStatus(fx.server, desktop.accessToken)).toBe(401);
    expect(await liveGrants(app.clientId)).toHaveLength(0);
    expect(await rowsOnAppsPage(app.name)).toBe(0);
  });

  it('RFC 6749 §4.1.2: a replayed code revokes the family it issued, not the app’s other devices', async () => {
    const app = await newApp();
    const other = await grantForClient(fx.server, fx.user, app.clientId);
    const { verifier, challenge } = pkce();
    const { code } = await authorizeCode(fx.server, fx.user, { clientId: app.clientId, challenge });
    const first = await exchangeCode(fx.server, { clientId: app.clientId, code, verifier });
    expect(first.status).toBe(200);
    const replay = await exchangeCode(fx.server, { clientId: app.clientId, code, verifier });
    expect(replay.body.error).toBe('invalid_grant');
    expect(await mcpStatus(fx.server, first.body.access_token as string)).toBe(401);
    expect(await mcpStatus(fx.server, other.accessToken)).toBe(200);
    expect(await liveGrants(app.clientId)).toHaveLength(1);
  });

  it('revoking the connected app (its page) ends every device', async () => {
    const app = await newApp();
    const devices = [
      await grantForClient(fx.server, fx.user, app.clientId),
      await grantForClient(fx.server, fx.user, app.clientId),
    ];
    const [grant] = await liveGrants(app.clientId);
    const page = await fetch(`${fx.server.url}/account/apps`, { headers: { cookie: fx.user.cookie } });
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
    const res = await fetch(`${fx.server.url}/account/apps/revoke`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie: fx.user.cookie,
        'content-type': 'application/x-www-form-urlencoded',
        origin: new URL(fx.server.url).origin,
        'sec-fetch-site': 'same-origin',
      },
      body: new URLSearchParams({ csrf, grant: grant?.id ?? '' }),
    });
    expect(res.status).toBe(303);
    for (const device of devices) expect(await mcpStatus(fx.server, device.accessToken)).toBe(401);
    expect(await liveGrants(app.clientId)).toHaveLength(0);
  });
});
