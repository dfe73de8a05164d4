import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ISO_Z, type Sandbox, startSandbox } from '../helpers/sandbox-process.js';

let sbx: Sandbox;
beforeAll(async () => {
  sbx = await startSandbox();
});
afterAll(async () => {
  await sbx?.stop();
});
afterEach(async () => {
  await sbx.control('DELETE', '/faults');
});

describe('faults', () => {
  it('added latency', async () => {
    const token = await sbx.credential();
    await sbx.control('PUT', '/faults', { token, latency_ms: 300 });
    const t0 = Date.now();
    expect((await sbx.search('GET', '/api/iq/credits', { token })).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
  });

  it('5xx for the next N requests, with each host’s body shape', async () => {
    const token = await sbx.credential();
    const put = await sbx.control('PUT', '/faults', {
      token,
      error_rate: 1,
      error_status: 502,
      remaining: 2,
    });
    expect(put.status).toBe(200);
    expect(put.body.credentials[token]).toMatchObject({ error_rate: 1, remaining: 2 });
    const a = await sbx.search('GET', '/api/iq/credits', { token });
    expect(a.status).toBe(502);
    expect(typeof a.body.error).toBe('string');
    const b = await sbx.agent('GET', '/api/v1/runs', { token });
    expect(b.status).toBe(502);
    expect(typeof b.body.detail).toBe('string');
    expect((await sbx.search('GET', '/api/iq/credits', { token })).status).toBe(200);
    expect((await sbx.control('GET', '/faults')).body.credentials).toEqual({});
  });

  it('429 with Retry-After', async () => {
    const token = await sbx.credential();
    await sbx.control('PUT', '/faults', { token, rate_limit: true, retry_after_s: 7 });
    const res = await sbx.search('POST', '/api/iq/keyword_search', { token, body: { query: 'q' } });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    // A refused request changes nothing.
    expect((await sbx.control('GET', `/credentials/${token}`)).body.credits).toBe(100);
  });

  it('hanging requests: answer 504 after hang_ms, or never until the client gives up', async () => {
    const token = await sbx.credential();
    await sbx.control('PUT', '/faults', { token, hang: true, hang_ms: 250 });
    const t0 = Date.now();
    const res = await sbx.search('GET', '/api/iq/credits', { token });
    expect(res.status).toBe(504);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(240);
    await sbx.control('PUT', '/faults', { token, hang: true });
    const aborted = fetch(`${sbx.searchUrl}/api/iq/credits`, {
      headers: { 'X-SERVICE-TOKEN': token, 'X-SERVICE-USER-ID': 'u' },
      signal: AbortSignal.timeout(300),
    });
    await expect(aborted).rejects.toThrow();
    await sbx.control('DELETE', `/faults?token=${token}`);
    expect((await sbx.search('GET', '/api/iq/credits', { token })).status).toBe(200);
  });

  it('connection resets: the request gets no answer at all, and is logged with fault "reset"', async () => {
    const token = await sbx.credential();
    await sbx.control('PUT', '/faults', { token, reset: true, remaining: 1 });
    await expect(
      sbx.search('POST', '/api/iq/keyword_search', { token, body: { query: 'q' } }),
    ).rejects.toThrow();
    // Dropped before it was handled: nothing was created.
    expect((await sbx.control('GET', `/credentials/${token}/creates`)).body.keyword).toBe(0);
    expect((await sbx.search('GET', '/api/iq/credits', { token })).status).toBe(200);
    const { requests } = (await sbx.control('GET', `/credentials/${token}/requests`)).body;
    expect(requests[0]).toMatchObject({ method: 'POST', status: null, fault: 'reset' });
    expect(requests[1]).toMatchObject({ status: 200, fault: null });
  });

  it('after_handling: the create is made upstream, then its answer is lost (reset) or an error', async () => {
    const token = await sbx.credential();
    await sbx.control('PUT', '/faults', {
      token,
      reset: true,
      after_handling: true,
      method: 'POST',
      remaining: 1,
    });
    // A read is not a POST: untouched.
    expect((await sbx.agent('GET', '/api/v1/runs', { token })).status).toBe(200);
    await expect(
      sbx.agent('POST', '/api/v1/runs', { token, body: { question: 'Lost answer?' } }),
    ).rejects.toThrow();
    await sbx.control('PUT', '/faults', { token, error_rate: 1, after_handling: true, remaining: 1 });
    const failed = await sbx.search('POST', '/api/iq/keyword_search', { token, body: { query: 'q' } });
    expect(failed.status).toBe(503);
    expect(failed.body.error).toMatch(/sandbox fault/);
    expect((await sbx.control('GET', `/credentials/${token}/creates`)).body).toEqual({
      keyword: 1,
      user: 0,
      expert: 0,
      runs: 1,
      total: 2,
    });
  });

  it('down for N seconds: every request is dropped until then, after which the set clears itself', async () => {
    const token = await sbx.credential();
    await sbx.control('PUT', '/faults', { token, down_s: 1 });
    const t0 = Date.now();
    await expect(sbx.search('GET', '/api/iq/credits', { token })).rejects.toThrow();
    await expect(sbx.agent('GET', '/api/v1/runs', { token })).rejects.toThrow();
    // Polls until it answers: the outage ends on its own, about a second after the PUT.
    let status = 0;
    while (status !== 200) {
      status = await sbx.search('GET', '/api/iq/credits', { token }).then(
        (r) => r.status,
        () => 0,
      );
      if (status !== 200) await new Promise((r) => setTimeout(r, 50));
    }
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    expect((await sbx.control('GET', '/faults')).body.credentials).toEqual({});
  });

  it('latency after handling: the create is made at once, its answer comes late', async () => {
    const token = await sbx.credential();
    await sbx.control('PUT', '/faults', { token, latency_ms: 1_000, after_handling: true });
    const answer = sbx.search('POST', '/api/iq/keyword_search', { token, body: { query: 'q' } });
    // Made while the answer is still held back.
    for (;;) {
      if ((await sbx.control('GET', `/credentials/${token}/creates`)).body.keyword === 1) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const settled = await Promise.race([answer.then(() => 'answered'), Promise.resolve('pending')]);
    expect(settled).toBe('pending');
    expect((await answer).status).toBe(201);
  });

  it('creates count what each credential created (searches of each kind, runs by the API)', async () => {
    const token = await sbx.credential({ producer: true });
    await sbx.search('POST', '/api/iq/keyword_search', { token, body: { query: 'a' } });
    await sbx.search('POST', '/api/iq/user_search', {
      token,
      body: { query: 'someone', platform: 'twitter' },
    });
    await sbx.agent('POST', '/api/v1/runs', { token, body: { question: 'Counted?' } });
    await sbx.control('POST', '/outside-runs', { token });
    const res = await sbx.control('GET', `/credentials/${token}/creates`);
    expect(res.body).toEqual({ keyword: 1, user: 1, expert: 0, runs: 1, total: 3 });
    expect((await sbx.control('GET', '/credentials/sbx_unknown/creates')).status).toBe(404);
  });

  it('global faults hit every credential; per-credential faults only their own; path_prefix narrows', async () => {
    const a = await sbx.credential();
    const b = await sbx.credential();
    await sbx.control('PUT', '/faults', { token: a, error_rate: 1 });
    expect((await sbx.search('GET', '/api/iq/credits', { token: a })).status).toBe(503);
    expect((await sbx.search('GET', '/api/iq/credits', { token: b })).status).toBe(200);
    await sbx.control('DELETE', '/faults');
    await sbx.control('PUT', '/faults', { error_rate: 1, path_prefix: '/api/v1/' });
    expect((await sbx.agent('GET', '/api/v1/runs', { token: b })).status).toBe(503);
    expect((await sbx.search('GET', '/api/iq/credits', { token: b })).status).toBe(200);
    // Control endpoints are never faulted.
    expect((await sbx.control('GET', '/clock')).status).toBe(200);
  });

  it('unknown fault fields and unknown credentials are refused', async () => {
    expect((await sbx.control('PUT', '/faults', { explode: true })).status).toBe(400);
    expect((await sbx.control('PUT', '/faults', { token: 'nope', latency_ms: 1 })).status).toBe(404);
  });
});

describe('control API', () => {
  it('POST /__sandbox/credentials with {credits?, producer?} answers {token}', async () => {
    const res = await sbx.control('POST', '/credentials', { credits: 7, producer: true });
    expect(res.status).toBe(201);
    expect(typeof res.body.token).toBe('string');
    expect(res.body).toMatchObject({ credits: 7, producer: true });
    const bare = await sbx.control('POST', '/credentials');
    expect(bare.body).toMatchObject({ credits: 100, producer: false });
    expect((await sbx.control('POST', '/credentials', { credits: -1 })).status).toBe(400);
  });

  it('the printed TOKEN is ready: 100 credits and the producer flag', async () => {
    const rec = await sbx.control('GET', `/credentials/${sbx.token}`);
    expect(rec.body).toMatchObject({ credits: 100, producer: true });
  });

  it('records the requests a credential made: method, host, path, user id, time, status', async () => {
    const token = await sbx.credential();
    await sbx.search('GET', '/api/iq/keyword_search?page=1', { token, userId: 'member-42' });
    await sbx.agent('GET', '/api/v1/runs', { token, userId: 'member-43' });
    await sbx.search('GET', '/api/usage', { token, userId: null });
    const res = await sbx.control('GET', `/credentials/${token}/requests`);
    expect(res.body.requests).toHaveLength(3);
    const [a, b, c] = res.body.requests;
    expect(a).toMatchObject({
      method: 'GET',
      host: 'search',
      path: '/api/iq/keyword_search',
      query: '?page=1',
      user_id: 'member-42',
      status: 200,
    });
    expect(a.time).toMatch(ISO_Z);
    expect(b).toMatchObject({
      method: 'GET',
      host: 'agent',
      path: '/api/v1/runs',
      user_id: 'member-43',
      status: 200,
    });
    expect(c).toMatchObject({ path: '/api/usage', user_id: null });
    await sbx.control('DELETE', `/credentials/${token}/requests`);
    expect((await sbx.control('GET', `/credentials/${token}/requests`)).body.requests).toEqual([]);
  });

  it('credential records: credits, searches, runs, schedules; PATCH sets credits', async () => {
    const token = await sbx.credential();
    await sbx.search('POST', '/api/iq/keyword_search', { token, userId: 'm1', body: { query: 'recorded' } });
    await sbx.agent('POST', '/api/v1/runs', {
      token,
      body: { question: 'recorded run', available_credits: 1 },
    });
    const rec = (await sbx.control('GET', `/credentials/${token}`)).body;
    expect(rec.searches.keyword[0]).toMatchObject({ query: 'recorded', status: 'finished', user_id: 'm1' });
    expect(rec.runs[0]).toMatchObject({ question: 'recorded run', status: 'completed', origin: 'api' });
    expect(rec.credits).toBe(100 - 1 - rec.runs[0].usage.credits_used);
    const patched = await sbx.control('PATCH', `/credentials/${token}`, { credits: 0 });
    expect(patched.body.credits).toBe(0);
    expect((await sbx.search('GET', '/api/iq/credits', { token })).body.available_credits).toBe(0);
    expect((await sbx.control('GET', '/credentials/unknown')).status).toBe(404);
  });

  it('clock: freeze, advance, set, resume; speed can be read and changed', async () => {
    const frozen = await sbx.control('POST', '/clock', { freeze: true });
    expect(frozen.body.frozen).toBe(true);
    const t = Date.parse(frozen.body.now);
    const later = await sbx.control('POST', '/clock', { advance_ms: 90_000 });
    expect(Date.parse(later.body.now) - t).toBe(90_000);
    const set = await sbx.control('POST', '/clock', { set: '2030-01-01T00:00:00Z' });
    expect(set.body.now).toBe('2030-01-01T00:00:00.000Z');
    const resumed = await sbx.control('POST', '/clock', { freeze: false });
    expect(resumed.body.frozen).toBe(false);
    expect((await sbx.control('GET', '/speed')).body.speed).toBe('instant');
    expect((await sbx.control('PUT', '/speed', { speed: 'realistic' })).body.speed).toBe('realistic');
    expect((await sbx.control('PUT', '/speed', { speed: 'warp' })).status).toBe(400);
    await sbx.control('PUT', '/speed', { speed: 'instant' });
  });
});
