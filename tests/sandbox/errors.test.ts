import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../helpers/sandbox-process.js';

let sbx: Sandbox;
beforeAll(async () => {
  sbx = await startSandbox();
});
afterAll(async () => {
  await sbx?.stop();
});

const MISSING_RUN = '00000000-0000-4000-8000-000000000000';

async function creditsOf(token: string): Promise<number> {
  return (await sbx.control('GET', `/credentials/${token}`)).body.credits;
}

describe('authentication', () => {
  it('missing or unknown token → 401 on both hosts, with each host’s body shape', async () => {
    for (const token of [null, 'sbx_not_a_real_token']) {
      const s = await sbx.search('GET', '/api/iq/keyword_search', { token });
      expect(s.status).toBe(401);
      expect(typeof s.body.error).toBe('string');
      const a = await sbx.agent('GET', '/api/v1/runs', { token });
      expect(a.status).toBe(401);
      expect(typeof a.body.detail).toBe('string');
      const u = await sbx.search('GET', '/api/usage', { token, userId: null });
      expect(u.status).toBe(401);
    }
  });

  it('valid token without user id → 400, except /api/usage', async () => {
    const s = await sbx.search('POST', '/api/iq/keyword_search', { userId: null, body: { query: 'x' } });
    expect(s.status).toBe(400);
    expect(s.body.error).toMatch(/X-SERVICE-USER-ID/);
    const a = await sbx.agent('GET', '/api/v1/runs', { userId: null });
    expect(a.status).toBe(400);
    expect(a.body.detail).toMatch(/X-SERVICE-USER-ID/);
    expect((await sbx.search('GET', '/api/usage', { userId: null })).status).toBe(200);
  });

  it('header names are case-insensitive', async () => {
    const res = await sbx.search('GET', '/api/iq/credits', {
      token: null,
      userId: null,
      headers: { 'x-service-token': sbx.token, 'X-Service-User-Id': 'u' },
    });
    expect(res.status).toBe(200);
  });

  it('expert search without the producer permission → 403', async () => {
    const token = await sbx.credential({ producer: false });
    const res = await sbx.search('POST', '/api/search', { token, body: { query: 'experts' } });
    expect(res.status).toBe(403);
    expect(typeof res.body.error).toBe('string');
    expect((await sbx.search('GET', '/api/search', { token })).status).toBe(403);
    expect(await creditsOf(token)).toBe(100);
  });
});

describe('search host: invalid parameters → 400 {error}, nothing changes', () => {
  const cases: [string, string | undefined, unknown][] = [
    ['missing query', undefined, { platforms: ['twitter'] }],
    ['empty query', undefined, { query: '   ' }],
    ['query over 500 chars', undefined, { query: 'x'.repeat(501) }],
    ['bad start date', undefined, { query: 'q', start_date: '2026-13-01' }],
    ['impossible calendar date', undefined, { query: 'q', start_date: '2026-02-30' }],
    ['date in wrong format', undefined, { query: 'q', end_date: '01/02/2026' }],
    ['start after end', undefined, { query: 'q', start_date: '2026-05-10', end_date: '2026-05-01' }],
    ['linkedin with others', undefined, { query: 'q', platforms: ['linkedin', 'twitter'] }],
    ['max_post 0', undefined, { query: 'q', max_post: 0 }],
    ['max_post 10001', undefined, { query: 'q', max_post: 10_001 }],
    ['max_post not an integer', undefined, { query: 'q', max_post: 2.5 }],
    ['unknown platform', undefined, { query: 'q', platforms: ['myspace'] }],
    ['empty platforms', undefined, { query: 'q', platforms: [] }],
    ['malformed JSON', '{"query": "q",', undefined],
    ['body not an object', '[1,2]', undefined],
  ];
  it.each(cases)('keyword search: %s', async (_name, rawBody, body) => {
    const token = await sbx.credential();
    const res = await sbx.search('POST', '/api/iq/keyword_search', { token, rawBody, body });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body)).toEqual(['error']);
    expect(typeof res.body.error).toBe('string');
    expect(await creditsOf(token)).toBe(100);
    expect((await sbx.search('GET', '/api/iq/keyword_search', { token })).body.total).toBe(0);
  });

  it('accepts the boundaries: max_post 1 and 10000, query of 500 chars, linkedin alone', async () => {
    for (const body of [
      { query: 'q', max_post: 1 },
      { query: 'q', max_post: 10_000 },
      { query: 'y'.repeat(500) },
      { query: 'q', platforms: ['linkedin'] },
    ]) {
      expect((await sbx.search('POST', '/api/iq/keyword_search', { body })).status).toBe(201);
    }
  });

  it('user search: missing platform, unknown platform, bad dates', async () => {
    const token = await sbx.credential();
    for (const body of [
      { query: 'someone' },
      { query: 'someone', platform: 'reddit' },
      { query: 'someone', platform: 'twitter', start_date: '2026-02-01', end_date: '2026-01-01' },
      { platform: 'twitter' },
    ]) {
      const res = await sbx.search('POST', '/api/iq/user_search', { token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(typeof res.body.error).toBe('string');
    }
    expect(await creditsOf(token)).toBe(100);
  });

  it('posts_data with an unknown platform → 400; list with bad show/page → 400', async () => {
    const created = await sbx.search('POST', '/api/iq/keyword_search', { body: { query: 'q' } });
    const res = await sbx.search(
      'GET',
      `/api/iq/keyword_search/${created.body.id}/posts_data?platform=myspace`,
    );
    expect(res.status).toBe(400);
    expect((await sbx.search('GET', '/api/iq/keyword_search?show=done')).status).toBe(400);
    expect((await sbx.search('GET', '/api/iq/user_search?page=0')).status).toBe(400);
    expect((await sbx.search('GET', '/api/usage?month=2026-13')).status).toBe(400);
  });

  it('PUT /api/setup with a bad URL or one over 2048 chars → 400, setup unchanged', async () => {
    const token = await sbx.credential();
    for (const body of [
      { return_url: 'not a url' },
      { return_url: 'ftp://example.com/x' },
      { return_url: `https://example.com/${'a'.repeat(2048)}` },
      {},
    ]) {
      const res = await sbx.search('PUT', '/api/setup', { token, body });
      expect(res.status).toBe(400);
    }
    expect((await sbx.search('GET', '/api/setup', { token })).body.return_url).toBeNull();
  });
});

describe('unknown ids and other credentials → 404', () => {
  it('search host', async () => {
    const created = await sbx.search('POST', '/api/iq/keyword_search', { body: { query: 'mine' } });
    const other = await sbx.credential({ producer: true });
    for (const path of [
      '/api/iq/keyword_search/999999',
      '/api/iq/keyword_search/abc',
      '/api/iq/keyword_search/999999/posts_data',
      '/api/iq/keyword_search/999999/topic_tree',
      '/api/iq/user_search/999999',
      '/api/iq/user_search/999999/posts_data',
      '/api/search/999999',
    ]) {
      const res = await sbx.search('GET', path);
      expect(res.status, path).toBe(404);
      expect(typeof res.body.error).toBe('string');
    }
    expect(
      (await sbx.search('GET', `/api/iq/keyword_search/${created.body.id}`, { token: other })).status,
    ).toBe(404);
    expect((await sbx.search('GET', `/api/iq/keyword_search/${created.body.id}`)).status).toBe(200);
  });

  it('agent host: unknown run and schedule ids → 404 {detail}', async () => {
    for (const [method, path] of [
      ['GET', `/api/v1/runs/${MISSING_RUN}`],
      ['POST', `/api/v1/runs/${MISSING_RUN}/cancel`],
      ['POST', `/api/v1/runs/${MISSING_RUN}/rerun`],
      ['DELETE', `/api/v1/runs/${MISSING_RUN}`],
      ['GET', `/api/v1/schedules/${MISSING_RUN}`],
      ['POST', `/api/v1/schedules/${MISSING_RUN}/pause`],
      ['GET', `/api/v1/schedules/${MISSING_RUN}/runs`],
      ['DELETE', `/api/v1/schedules/${MISSING_RUN}`],
    ] as const) {
      const res = await sbx.agent(method, path);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(typeof res.body.detail).toBe('string');
    }
  });

  it('a run of another credential is invisible', async () => {
    const run = await sbx.agent('POST', '/api/v1/runs', { body: { question: 'private?' } });
    const other = await sbx.credential();
    expect((await sbx.agent('GET', `/api/v1/runs/${run.body.id}`, { token: other })).status).toBe(404);
    expect((await sbx.agent('GET', '/api/v1/runs', { token: other })).body.total).toBe(0);
  });

  it('agent paths on the search host root 404 like a wrong host; search paths under /agent too', async () => {
    const a = await sbx.search('GET', '/api/v1/runs');
    expect(a.status).toBe(404);
    expect(a.body).toEqual({ error: 'Not Found' });
    const b = await sbx.agent('GET', '/api/iq/keyword_search');
    expect(b.status).toBe(404);
    expect(b.body).toEqual({ detail: 'Not Found' });
  });
});

describe('agent host: validation → 422 list of {loc, msg, type}', () => {
  const expectValidation = (body: { detail: unknown }) => {
    expect(Array.isArray(body.detail)).toBe(true);
    for (const item of body.detail as Record<string, unknown>[]) {
      expect(Array.isArray(item.loc)).toBe(true);
      expect(typeof item.msg).toBe('string');
      expect(typeof item.type).toBe('string');
    }
  };

  it('run create: missing question, bad mode, credits out of range, malformed JSON', async () => {
    const token = await sbx.credential();
    for (const opts of [
      { body: {} },
      { body: { question: 'q', mode: 'poetry' } },
      { body: { question: 'q', available_credits: 5 } },
      { body: { question: 'q', available_credits: 0 } },
      { body: { question: 'q', time_window: 'forever' } },
      { body: { question: 'q', platforms: ['myspace'] } },
      { body: { question: 'q', parent_run_id: 'nope' } },
      { rawBody: '{"question":' },
    ]) {
      const res = await sbx.agent('POST', '/api/v1/runs', { token, ...opts });
      expect(res.status, JSON.stringify(opts)).toBe(422);
      expectValidation(res.body);
    }
    const missing = await sbx.agent('POST', '/api/v1/runs', { token, body: {} });
    expect(missing.body.detail[0].loc).toEqual(['body', 'question']);
    expect(missing.body.detail[0].type).toBe('missing');
    const malformed = await sbx.agent('POST', '/api/v1/runs', { token, rawBody: '{"question":' });
    expect(malformed.body.detail[0].type).toBe('json_invalid');
    expect((await sbx.agent('GET', '/api/v1/runs', { token })).body.total).toBe(0);
    expect(await creditsOf(token)).toBe(100);
  });

  it('wrong UUIDs in paths → 422 naming the path parameter', async () => {
    for (const path of ['/api/v1/runs/123', '/api/v1/runs/not-a-uuid/cancel', '/api/v1/schedules/xyz']) {
      const res = await sbx.agent(path.endsWith('cancel') ? 'POST' : 'GET', path);
      expect(res.status, path).toBe(422);
      expectValidation(res.body);
      expect(res.body.detail[0].loc[0]).toBe('path');
      expect(res.body.detail[0].type).toBe('uuid_parsing');
    }
  });

  it('list: limit over 100, negative offset, unknown status → 422; limit 100 accepted', async () => {
    for (const q of ['limit=101', 'limit=0', 'offset=-1', 'status=sleeping', 'limit=abc']) {
      const res = await sbx.agent('GET', `/api/v1/runs?${q}`);
      expect(res.status, q).toBe(422);
      expectValidation(res.body);
      expect(res.body.detail[0].loc[0]).toBe('query');
    }
    const ok = await sbx.agent('GET', '/api/v1/runs?limit=100&offset=0');
    expect(ok.status).toBe(200);
    expect(ok.body.limit).toBe(100);
    expect((await sbx.agent('GET', '/api/v1/schedules?limit=101')).status).toBe(422);
  });
});

describe('insufficient credits → 402 with the documented body', () => {
  it('keyword, user and expert search at 0 credits; state unchanged', async () => {
    const token = await sbx.credential({ credits: 1, producer: true });
    expect(
      (await sbx.search('POST', '/api/iq/keyword_search', { token, body: { query: 'last one' } })).status,
    ).toBe(201);
    for (const [path, body] of [
      ['/api/iq/keyword_search', { query: 'q' }],
      ['/api/iq/user_search', { query: 'q', platform: 'twitter' }],
      ['/api/search', { query: 'q' }],
    ] as const) {
      const res = await sbx.search('POST', path, { token, body });
      expect(res.status, path).toBe(402);
      expect(res.body).toEqual({ error: 'insufficient_credits', required_credits: 1, available_credits: 0 });
    }
    const record = (await sbx.control('GET', `/credentials/${token}`)).body;
    expect(record.credits).toBe(0);
    expect(record.searches.keyword).toHaveLength(1);
    expect(record.searches.user).toHaveLength(0);
    expect(record.searches.expert).toHaveLength(0);
  });

  it('agent run create and rerun need the run’s credit budget', async () => {
    const token = await sbx.credential({ credits: 2 });
    const res = await sbx.agent('POST', '/api/v1/runs', { token, body: { question: 'too expensive' } });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({
      error: 'insufficient_credits',
      required_credits: 4,
      available_credits: 2,
    });
    expect((await sbx.agent('GET', '/api/v1/runs', { token })).body.total).toBe(0);
    const cheap = await sbx.agent('POST', '/api/v1/runs', {
      token,
      body: { question: 'cheap', available_credits: 1 },
    });
    expect(cheap.status).toBe(201);
  });
});
