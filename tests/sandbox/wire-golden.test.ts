import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type InProc, inProcSandbox } from '../helpers/sandbox-inproc.js';

/**
 * Every search-host response of a fixed scenario, as digests of the exact bytes. The snapshot was
 * recorded before datasets became derived-on-read and records were indexed per credential, so it proves
 * those changes left the wire byte-for-byte as it was. A deliberate change to the synthetic data or the
 * response shapes updates it with `npx vitest run tests/sandbox/wire-golden.test.ts -u`.
 */

const T0 = Date.parse('2026-06-01T12:00:00Z');
const HOOK = 'http://127.0.0.1:9/hook';

const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

interface Made {
  name: string;
  kind: 'keyword' | 'user' | 'expert';
  token: string;
  id: number;
}

async function scenario(s: InProc): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const store = s.app.sandbox.store;
  const creds = {
    a: store.createCredential({ producer: true }).token,
    b: store.createCredential({}).token,
    lag: store.createCredential({}).token,
    failing: store.createCredential({ producer: true }).token,
  };
  await s.control('PUT', '/faults', { token: creds.lag, results_lag_ms: 1_500 });
  await s.control('PUT', '/faults', { token: creds.failing, fail_searches: true });
  await s.req('PUT', '/api/setup', { token: creds.a, userId: 'u1', body: { return_url: HOOK } });

  const made: Made[] = [];
  const create = async (
    name: string,
    kind: Made['kind'],
    cred: keyof typeof creds,
    user: string,
    body: object,
  ) => {
    const path =
      kind === 'keyword' ? '/api/iq/keyword_search' : kind === 'user' ? '/api/iq/user_search' : '/api/search';
    const res = await s.req('POST', path, { token: creds[cred], userId: user, body });
    out[`create ${name}`] = `${res.status} ${digest(res.text)}`;
    made.push({ name, kind, token: creds[cred], id: (JSON.parse(res.text) as { id: number }).id });
    s.advance(300);
  };
  await create('K1', 'keyword', 'a', 'u1', { query: 'solar panels' });
  await create('U1', 'user', 'a', 'u1', { query: '@amber_heron12', platform: 'twitter' });
  await create('K2', 'keyword', 'b', 'u2', {
    query: '"heat pump" AND (grants OR rebates)',
    platforms: ['twitter', 'reddit', 'bluesky', 'youtube', 'threads', 'facebook', 'weibo', 'reddit'],
    start_date: '2026-05-01',
    end_date: '2026-05-20',
    max_post: 15,
  });
  await create('K3', 'keyword', 'a', 'u2', {
    query: '#tiny',
    platforms: ['twitter', 'twitter', 'youtube'],
    max_post: 3,
  });
  await create('U2', 'user', 'b', 'u1', {
    query: 'tidal_quill88',
    platform: 'facebook',
    start_date: '2026-01-01',
    end_date: '2026-03-31',
    max_post: 5,
  });
  await create('K4', 'keyword', 'a', 'u1', {
    query: 'hiring freeze',
    platforms: ['linkedin'],
    start_date: '2026-04-01',
    end_date: '2026-04-01',
  });
  await create('E1', 'expert', 'a', 'u1', { query: 'wetland ecologists' });
  await create('K5', 'keyword', 'b', 'u3', { query: 'solar panels' });
  await create('K6', 'keyword', 'lag', 'u1', { query: 'late results', platforms: ['twitter', 'reddit'] });
  await create('U3', 'user', 'a', 'u3', { query: 'opal', platform: 'instagram' });
  await create('K7', 'keyword', 'failing', 'u3', { query: 'doomed' });
  await create('U4', 'user', 'lag', 'u2', { query: '@lagging', platform: 'twitter' });
  await create('E2', 'expert', 'failing', 'u1', { query: 'never' });

  const snapshot = async (label: string) => {
    for (const m of made) {
      const texts: string[] = [];
      const get = async (path: string) => {
        const res = await s.req('GET', path, { token: m.token, userId: 'u9' });
        texts.push(`${res.status} ${res.text}`);
      };
      if (m.kind === 'keyword') {
        const base = `/api/iq/keyword_search/${m.id}`;
        for (const p of [
          '',
          '/posts_data',
          '/posts_data?platform=twitter',
          '/topic_tree',
          '/topic_tree?platform=reddit',
        ])
          await get(`${base}${p}`);
      } else if (m.kind === 'user') {
        await get(`/api/iq/user_search/${m.id}`);
        await get(`/api/iq/user_search/${m.id}/posts_data`);
      } else await get(`/api/search/${m.id}`);
      out[`${label} ${m.name}`] = digest(texts.join('\n'));
    }
    for (const [name, token] of Object.entries(creds)) {
      const texts: string[] = [];
      for (const path of [
        '/api/iq/keyword_search',
        '/api/iq/keyword_search?show=finished',
        '/api/iq/keyword_search?show=started&page=1',
        '/api/iq/user_search',
        '/api/iq/user_search?show=pending',
        '/api/search',
        '/api/usage',
        '/api/usage?month=2026-06',
        '/api/usage?month=2026-05',
        '/api/iq/credits',
      ]) {
        const res = await s.req('GET', path, { token, userId: 'u9' });
        texts.push(`${res.status} ${res.text}`);
      }
      out[`${label} lists ${name}`] = digest(texts.join('\n'));
    }
  };

  for (const at of [0, 1_500, 2_600, 5_000, 20_000]) {
    s.clock.set(T0 + made.length * 300 + at);
    await snapshot(`t+${at}`);
  }

  // A later month and a clock moved back: usage periods and list order by created_at, not by id.
  s.clock.set(Date.parse('2026-07-05T08:00:00Z'));
  await create('K8', 'keyword', 'a', 'u2', { query: 'july', platforms: ['reddit'] });
  s.clock.set(T0 - 3 * 86_400_000);
  await create('K9', 'keyword', 'a', 'u1', { query: 'earlier', platforms: ['bluesky'] });
  await create('U5', 'user', 'a', 'u4', { query: 'earlier', platform: 'twitter' });
  s.clock.set(Date.parse('2026-07-06T00:00:00Z'));
  await snapshot('later');

  const hooks = (await s.control('GET', '/webhooks')) as {
    body: {
      deliveries: {
        id: number;
        kind: string;
        search_id: number;
        url: string;
        attempted_at: string;
        payload: unknown;
      }[];
    };
  };
  out.webhooks = digest(
    JSON.stringify(
      hooks.body.deliveries.map((d) => [d.id, d.kind, d.search_id, d.url, d.attempted_at, d.payload]),
    ),
  );
  for (const [name, token] of Object.entries(creds)) {
    const view = (await s.control('GET', `/credentials/${token}`)) as { body: Record<string, unknown> };
    out[`control ${name}`] = digest(JSON.stringify([view.body.searches, view.body.credits]));
  }
  return out;
}

describe('search host wire bytes', () => {
  it('are unchanged for a fixed scenario (datasets, lists, usage, webhooks, control view)', async () => {
    const s = inProcSandbox(T0);
    try {
      expect(await scenario(s)).toMatchSnapshot();
    } finally {
      s.dispose();
    }
  });
});
