/**
 * Two server processes on one PostgreSQL database behind a round-robin balancer: no state
 * that matters lives in one process. Both instances share one sandbox process. Races of one refresh
 * token, one code and one email across two processes are also in concurrency.test.ts (which runs on
 * PostgreSQL in the postgres project); this file covers what goes through the balancer in front.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveUpstreamCredential } from '../../src/accounts/credentials.js';
import { createUser } from '../../src/accounts/users.js';
import { REFRESH_GRACE_MS } from '../../src/oauth/refresh.js';
import { createAccessToken } from '../../src/teams/access-tokens.js';
import { RATE_LIMITS } from '../../src/web/rate-limits.js';
import { FormClient } from '../helpers/forms.js';
import type { Gateway } from '../helpers/gateway.js';
import { issueTestToken } from '../helpers/grants.js';
import type { Json } from '../helpers/harness.js';
import { freshAddress, registerClient } from '../helpers/oauth-http.js';
import { callTool, getTask, untilEnded } from '../helpers/tasks.js';
import { ageTokenFamily } from '../helpers/token-checks.js';
import {
  pingStatus,
  postMcp,
  startTwoInstances,
  type TwoInstances,
  untilRefused,
} from '../helpers/two-instances.js';

const PASSWORD = 'correct horse battery staple';
const SEARCH = { query: 'heat pumps', platforms: ['reddit'], max_post: 10 };
let two: TwoInstances;

beforeAll(async () => {
  two = await startTwoInstances();
});

afterAll(async () => {
  await two?.close();
});

/** Polls `read` until `ok` holds (each poll is a real read; the bound only ends a test that failed). */
async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

function mcp(token: string, body: unknown, signal?: AbortSignal) {
  return postMcp(two.proxy.url, token, body, signal);
}

/** Loads the sign-in form and posts it as a browser at `ip` (TRUST_PROXY); answers the POST's status. */
async function signIn(email: string, password: string, ip: string): Promise<number> {
  const page = await fetch(`${two.proxy.url}/sign-in`, { headers: { 'x-forwarded-for': ip } });
  const cookie = page.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  const res = await fetch(`${two.proxy.url}/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie,
      origin: two.proxy.url,
      'x-forwarded-for': ip,
    },
    body: new URLSearchParams({ email, password, csrf }),
  });
  await res.arrayBuffer();
  return res.status;
}

/** POST /token or /revoke through the balancer, as a public client. */
async function oauthPost(path: '/token' | '/revoke', params: Record<string, string>) {
  const res = await fetch(`${two.proxy.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, string> };
}

/** A fresh grant of a registered public client (a refresh authenticates the client, RFC 6749 §6). */
async function refreshableGrant() {
  const { client_id: clientId } = await registerClient(two.view, {}, freshAddress());
  const upstreamToken = await two.sandbox.credential({});
  return issueTestToken(two.view, { upstreamToken, clientId });
}

/** Whether a pair still works anywhere: its access token at /mcp, its refresh token at /token. */
async function pairWorks(pair: { access_token: string; refresh_token: string }, clientId: string) {
  const ping = await mcp(pair.access_token, { jsonrpc: '2.0', id: 1, method: 'ping' });
  await ping.arrayBuffer();
  const refresh = await oauthPost('/token', {
    grant_type: 'refresh_token',
    refresh_token: pair.refresh_token,
    client_id: clientId,
  });
  return { mcp: ping.status, refresh: refresh.status };
}

describe('two instances behind a round-robin balancer, one PostgreSQL database', () => {
  it('counts a rate limit across both: the 11th wrong password for one account is refused, whichever instance gets it', async () => {
    const email = 'limited@example.com';
    const created = await createUser(two.store, { email, password: 'correct horse battery staple' });
    expect(created.ok).toBe(true);
    const limit = RATE_LIMITS.signInPerAccount.limit;
    const servedBefore = two.proxy.served.length;
    const statuses: number[] = [];
    // One after another, so each failure is counted before the next check.
    for (let i = 0; i < limit + 1; i++)
      statuses.push(await signIn(email, `wrong ${i}`, `198.51.100.${i + 1}`));
    expect(statuses.slice(0, limit)).toEqual(Array(limit).fill(401));
    expect(statuses[limit]).toBe(429);
    // The attempts were spread over both instances.
    expect(new Set(two.proxy.served.slice(servedBefore))).toEqual(new Set([0, 1]));
  });

  it('sign-in limits hold under concurrency: 80 parallel wrong passwords over both instances are checked at most as often as the limits allow', async () => {
    const perAccount = RATE_LIMITS.signInPerAccount.limit;
    const perAddress = RATE_LIMITS.signInPerIp.limit;
    const password = 'correct horse battery staple';
    const account = async (name: string) => {
      const email = `${name}@example.com`;
      expect((await createUser(two.store, { email, password })).ok).toBe(true);
      return email;
    };
    const checked = (statuses: number[]) => statuses.filter((s) => s === 401).length;
    const wrong = (i: number) => `wrong password ${i}`;
    const parallel = (attempt: (i: number) => Promise<number>) =>
      Promise.all(Array.from({ length: 80 }, (_, i) => attempt(i)));

    // One address, one account: the account's budget.
    const one = await account('parallel-one');
    const sameAddress = await parallel((i) => signIn(one, wrong(i), '203.0.113.10'));
    expect(checked(sameAddress)).toBe(perAccount);
    expect(sameAddress.filter((s) => s === 429)).toHaveLength(80 - perAccount);
    // One account from 80 addresses: still the account's budget.
    const spread = await account('parallel-spread');
    const manyAddresses = await parallel((i) => signIn(spread, wrong(i), `203.0.113.${100 + i}`));
    expect(checked(manyAddresses)).toBe(perAccount);
    // 80 accounts from one address (unknown ones are checked the same way): the address's budget.
    const oneAddress = await parallel((i) =>
      signIn(`parallel-many-${i}@example.com`, wrong(i), '203.0.113.11'),
    );
    expect(checked(oneAddress)).toBe(perAddress);
    expect(oneAddress.filter((s) => s === 429)).toHaveLength(80 - perAddress);
  });

  it('a waiting call on instance A is cancelled through instance B: the wait stops, the run goes on upstream', async () => {
    const upstreamToken = await two.sandbox.credential({ speed: 'demo' });
    const { accessToken, userId } = await issueTestToken(two.view, { upstreamToken });
    const waiting = () =>
      two.sql.all(
        'SELECT w.instance_id FROM waiting_calls w JOIN oauth_grants g ON g.id = w.grant_id WHERE g.user_id = ?',
        userId,
      );
    two.proxy.pin(0);
    const call = mcp(accessToken, {
      jsonrpc: '2.0',
      id: 'run-1',
      method: 'tools/call',
      params: { name: 'start_agent_run', arguments: { question: 'Will it rain on the parade?' } },
    });
    // The call is in the instances' directory once it has been waiting a while.
    const announced = await until(waiting, (rows) => rows.length === 1);
    expect(announced).toHaveLength(1);
    two.proxy.pin(1);
    const cancel = await mcp(accessToken, {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 'run-1', reason: 'changed my mind' },
    });
    expect(cancel.status).toBe(202);
    two.proxy.pin(null);
    // Instance A stops waiting: its response ends (the SDK sends no result for a cancelled request).
    const response = await call;
    await response.text();
    // The client stopped waiting; it did not ask for the run to go (only cancel_agent_run does).
    const record = await two.sandbox.control('GET', `/credentials/${upstreamToken}`);
    expect(record.body.runs).toHaveLength(1);
    expect(record.body.runs[0].status).not.toBe('failed');
    const requests = (await two.sandbox.control('GET', `/credentials/${upstreamToken}/requests`)).body
      .requests as Array<{
      method: string;
      path: string;
    }>;
    expect(requests.some((r) => r.method === 'POST' && r.path.endsWith('/cancel'))).toBe(false);
    // The directory row is withdrawn when the call ends.
    expect(await until(waiting, (rows) => rows.length === 0)).toEqual([]);
  });

  it('identical submits sent at once over both instances: one search upstream, every answer names it', async () => {
    const upstreamToken = await two.sandbox.credential({});
    const { accessToken } = await issueTestToken(two.view, { upstreamToken });
    const servedBefore = two.proxy.served.length;
    const answers = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const res = await mcp(accessToken, {
          jsonrpc: '2.0',
          id: i,
          method: 'tools/call',
          params: { name: 'submit_keyword_search', arguments: { query: 'identical twins', max_post: 10 } },
        });
        const text = await res.text();
        return (
          JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? text) as { result: { structuredContent: Json } }
        ).result.structuredContent;
      }),
    );
    expect(new Set(two.proxy.served.slice(servedBefore))).toEqual(new Set([0, 1]));
    expect(new Set(answers.map((a) => a.search_id)).size).toBe(1);
    expect(answers.filter((a) => a.reused === true)).toHaveLength(9);
    const requests = (await two.sandbox.control('GET', `/credentials/${upstreamToken}/requests`)).body
      .requests as Array<{ method: string; path: string }>;
    expect(requests.filter((r) => r.method === 'POST' && r.path === '/api/iq/keyword_search')).toHaveLength(
      1,
    );
  });

  it('a task created on instance A is polled on instance B until it completes', async () => {
    const upstreamToken = await two.sandbox.credential({ speed: 'demo' });
    const { accessToken } = await issueTestToken(two.view, { upstreamToken });
    const url = `${two.proxy.url}/mcp`;
    await two.sandbox.control('POST', '/clock', { freeze: true });
    try {
      two.proxy.pin(0);
      const created = await callTool(url, accessToken, 'submit_keyword_search', { query: 'two instances' });
      const { taskId } = created.message.result;
      expect(created.message.result.status).toBe('working');
      two.proxy.pin(1);
      expect((await getTask(url, accessToken, taskId)).message.result.status).toBe('working');
      await two.sandbox.advance(60_000);
      // A settles it; B reads what A wrote.
      const done = await untilEnded(url, accessToken, taskId, 30_000);
      expect(done.status).toBe('completed');
      expect(done.result.structuredContent).toMatchObject({ completed: true, status: 'finished' });
    } finally {
      two.proxy.pin(null);
      await two.sandbox.control('POST', '/clock', { freeze: false });
    }
  });

  it('an access token revoked through instance B is refused at once by instance A, which had it in memory', async () => {
    const { client_id: clientId } = await registerClient(
      two.view,
      {},
      { 'x-forwarded-for': '198.51.100.201' },
    );
    const { accessToken } = await issueTestToken(two.view, { upstreamToken: null, clientId });
    const [a, b] = two.instances as [Gateway, Gateway];
    const ping = (instance: Gateway) => pingStatus(instance.url, accessToken);
    // A answers from memory after the first lookup (the bearer check's cache, a few seconds).
    expect(await ping(a)).toBe(200);
    expect(await ping(a)).toBe(200);
    const revoked = await fetch(`${b.url}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: accessToken, client_id: clientId }),
    });
    expect(revoked.status).toBe(200);
    // B refuses from its commit; A from the delivery of that commit's NOTIFY, which PostgreSQL has
    // handed to A's listener by now, though A may read a request that was already waiting first.
    expect(await ping(b)).toBe(401);
    await untilRefused(() => ping(a));
    expect(await ping(a)).toBe(401);
  });

  it('an access token for automation stops working on both instances when it is revoked, and the moment it expires', async () => {
    const email = `automation-${process.pid}@example.com`;
    const created = await createUser(two.store, { email, password: PASSWORD });
    if (!created.ok) throw new Error(created.reason);
    const workspaceId = created.personalWorkspaceId;
    await saveUpstreamCredential(two.store, two.view.secrets, {
      workspaceId,
      linkedBy: created.user.id,
      token: two.sandbox.token,
      upstreamUserId: 'automation',
      verifiedAt: Date.now(),
    });
    const make = async (name: string) => {
      const made = await createAccessToken(
        two.store,
        created.user.id,
        { workspaceId, name, days: '30', scopes: ['account:read'], toolsets: null, readOnly: false },
        two.view.config.resourceUrl,
      );
      if (!made.ok) throw new Error(made.message);
      return made.value;
    };
    const ping = (instance: Gateway, token: string) => pingStatus(instance.url, token);
    const both = async (token: string) => Promise.all(two.instances.map((g) => ping(g, token)));
    const revoked = await make('revoked on the page');
    expect(await both(revoked.token)).toEqual([200, 200]);
    // The person revokes it on the account page, through the balancer; both instances refuse it at
    // the next request (an automation token is looked up on every request, never answered from memory,
    // so this does not wait for the NOTIFY to reach the other instance).
    const browser = new FormClient(two.proxy.url, '198.51.100.77');
    expect((await browser.signIn(email, PASSWORD)).status).toBe(303);
    await browser.get('/account');
    expect((await browser.post('/account/tokens/revoke', { token: revoked.grantId })).status).toBe(303);
    expect(await both(revoked.token)).toEqual([401, 401]);

    const expiring = await make('expires');
    await two.sql.run(
      'UPDATE oauth_tokens SET expires_at = ? WHERE grant_id = ?',
      Date.now() + 1_000,
      expiring.grantId,
    );
    expect(await both(expiring.token)).toEqual([200, 200]);
    expect(await both(expiring.token)).toEqual([200, 200]);
    await new Promise((r) => setTimeout(r, 1_100));
    // Nothing announces an expiry: each instance checks it on every request, cached or not.
    expect(await both(expiring.token)).toEqual([401, 401]);
  });

  it('50 parallel credit-spending calls at cap − 1 over both instances: exactly one passes', async () => {
    const upstreamToken = await two.sandbox.credential({ producer: true });
    const { accessToken, userId, workspaceId } = await issueTestToken(two.view, { upstreamToken });
    // Cap 1 with none spent: cap − 1 = 0 calls left after one.
    await two.sql.run(
      'UPDATE workspace_members SET monthly_write_cap = 1 WHERE workspace_id = ? AND user_id = ?',
      workspaceId,
      userId,
    );
    const results = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const res = await mcp(accessToken, {
          jsonrpc: '2.0',
          id: i,
          method: 'tools/call',
          params: { name: 'submit_keyword_search', arguments: SEARCH },
        });
        const text = await res.text();
        const json = JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? text) as {
          result?: { isError?: boolean };
        };
        return json.result?.isError === true ? 'refused' : 'passed';
      }),
    );
    expect(results.filter((r) => r === 'passed')).toHaveLength(1);
    const requests = (await two.sandbox.control('GET', `/credentials/${upstreamToken}/requests`)).body
      .requests as Array<{ method: string; path: string }>;
    expect(requests.filter((r) => r.method === 'POST' && r.path === '/api/iq/keyword_search')).toHaveLength(
      1,
    );
  });

  it('20 parallel refreshes of one refresh token over both instances: exactly two pairs (rotation and the grace extra), the rest reuse, which revokes the family', async () => {
    const g = await refreshableGrant();
    const servedBefore = two.proxy.served.length;
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        oauthPost('/token', {
          grant_type: 'refresh_token',
          refresh_token: g.refreshToken,
          client_id: g.clientId,
        }),
      ),
    );
    expect(new Set(two.proxy.served.slice(servedBefore))).toEqual(new Set([0, 1]));
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(2);
    expect(new Set(ok.map((r) => r.body.refresh_token)).size).toBe(2);
    const refused = results.filter((r) => r.status !== 200);
    expect(refused.map((r) => [r.status, r.body.error])).toEqual(Array(18).fill([400, 'invalid_grant']));
    // The reuse revoked the whole family: both new pairs, on either instance.
    for (const pair of ok) {
      expect(await pairWorks(pair.body as never, g.clientId)).toEqual({ mcp: 401, refresh: 400 });
    }
  });

  it('after the grace window at most one refresh branch lives, over both instances: the first used continues, the other is cut off and its later use ends the family', async () => {
    const g = await refreshableGrant();
    const refresh = (token: string) =>
      oauthPost('/token', { grant_type: 'refresh_token', refresh_token: token, client_id: g.clientId });
    // Used twice within the window, once on each instance: two branches.
    const a = await refresh(g.refreshToken);
    const b = await refresh(g.refreshToken);
    expect([a.status, b.status]).toEqual([200, 200]);
    // Both instances have answered the rotation branch's access token (their caches hold it).
    for (let i = 0; i < 2; i++) {
      const ping = await mcp(a.body.access_token as string, { jsonrpc: '2.0', id: 1, method: 'ping' });
      await ping.arrayBuffer();
      expect(ping.status).toBe(200);
    }
    // The window passes.
    await ageTokenFamily(two.sql, g.refreshToken, REFRESH_GRACE_MS + 1_000);
    const next = await refresh(b.body.refresh_token as string);
    expect(next.status).toBe(200);
    // Refused by both instances, whichever answered it before: the one that settled the fork from
    // its commit, the other from the NOTIFY's delivery (a request it had already read may come first).
    const pingA = async () => {
      const ping = await mcp(a.body.access_token as string, { jsonrpc: '2.0', id: 1, method: 'ping' });
      await ping.arrayBuffer();
      return ping.status;
    };
    await untilRefused(pingA);
    for (let i = 0; i < 2; i++) expect(await pingA()).toBe(401);
    const late = await refresh(a.body.refresh_token as string);
    expect([late.status, late.body.error]).toEqual([400, 'invalid_grant']);
    expect(await pairWorks(next.body as never, g.clientId)).toEqual({ mcp: 401, refresh: 400 });
  });

  it('refreshes racing revocations of their family over both instances: no error, and nothing of the family works afterwards', async () => {
    const g = await refreshableGrant();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 2
          ? oauthPost('/revoke', { token: g.refreshToken, client_id: g.clientId })
          : oauthPost('/token', {
              grant_type: 'refresh_token',
              refresh_token: g.refreshToken,
              client_id: g.clientId,
            }),
      ),
    );
    const revokes = results.filter((_, i) => i % 2);
    const refreshes = results.filter((_, i) => !(i % 2));
    expect(revokes.map((r) => r.status)).toEqual(Array(10).fill(200));
    for (const r of refreshes) {
      expect(r.status === 200 || (r.status === 400 && r.body.error === 'invalid_grant')).toBe(true);
    }
    expect(refreshes.filter((r) => r.status === 200).length).toBeLessThanOrEqual(2);
    // A pair minted before a revocation was revoked with the family; none was minted after one.
    for (const r of refreshes.filter((r) => r.status === 200)) {
      expect(await pairWorks(r.body as never, g.clientId)).toEqual({ mcp: 401, refresh: 400 });
    }
    expect(
      await pairWorks({ access_token: g.accessToken, refresh_token: g.refreshToken }, g.clientId),
    ).toEqual({
      mcp: 401,
      refresh: 400,
    });
  });

  it('SIGKILL of one instance under load: no acknowledged token is lost, and the other keeps serving', async () => {
    const upstreamToken = await two.sandbox.credential({});
    // A registered public client: a refresh authenticates the client (RFC 6749 §6).
    const { client_id: clientId } = await registerClient(
      two.view,
      {},
      { 'x-forwarded-for': '198.51.100.200' },
    );
    const grants = await Promise.all(
      Array.from({ length: 4 }, () => issueTestToken(two.view, { upstreamToken, clientId })),
    );
    const acknowledged: string[] = [];
    /** Each chain's last fully received pair. */
    const latest = grants.map((g) => ({ access: g.accessToken, refresh: g.refreshToken }));
    let stop = false;
    const load = grants.map(async (g, i) => {
      let refreshToken = g.refreshToken;
      while (!stop) {
        const res = await fetch(`${two.proxy.url}/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'refresh_token',
            refresh_token: refreshToken,
            client_id: g.clientId,
          }),
        }).catch(() => null);
        if (!res) continue;
        const body = (await res.json().catch(() => null)) as {
          access_token?: string;
          refresh_token?: string;
        } | null;
        if (res.status === 200 && body?.access_token && body.refresh_token) {
          acknowledged.push(body.access_token);
          refreshToken = body.refresh_token;
          latest[i] = { access: body.access_token, refresh: body.refresh_token };
        }
      }
      return refreshToken;
    });
    await until(
      async () => acknowledged.length,
      (n) => n >= 20,
    );
    const victim = two.instances[0] as Gateway;
    victim.proc.kill('SIGKILL');
    await victim.proc.exit();
    const atKill = acknowledged.length;
    await until(
      async () => acknowledged.length,
      (n) => n >= atKill + 20,
    );
    stop = true;
    await Promise.all(load);
    // Each chain's last acknowledged pair works through the surviving instance: the access token at
    // /mcp, the refresh token at /token (rotation on an instance that was killed mid-request either
    // committed, and the client got its answer, or rolled back, and the old pair still works).
    for (const [i, pair] of latest.entries()) {
      expect((await mcp(pair.access, { jsonrpc: '2.0', id: 1, method: 'ping' })).status).toBe(200);
      const res = await fetch(`${two.proxy.url}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: pair.refresh,
          client_id: (grants[i] as { clientId: string }).clientId,
        }),
      });
      expect(res.status).toBe(200);
    }
    expect(acknowledged.length).toBeGreaterThanOrEqual(atKill + 20);
  });
});
