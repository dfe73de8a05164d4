import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFields, ISO_Z, type Sandbox, startSandbox, UUID } from '../helpers/sandbox-process.js';

let sbx: Sandbox;
beforeAll(async () => {
  sbx = await startSandbox();
  // Every test here steps the clock by hand.
  await sbx.control('POST', '/clock', { freeze: true });
});
afterAll(async () => {
  await sbx?.stop();
});

const MIN = 60_000;

/** A credential whose runs take demo-speed time (pending 2 s, running 18 s) on the frozen clock. */
async function demoCred(credits = 100) {
  return sbx.credential({ credits, speed: 'demo' });
}

async function getRun(token: string, id: string) {
  const res = await sbx.agent('GET', `/api/v1/runs/${id}`, { token });
  expect(res.status).toBe(200);
  return res.body;
}

async function create(token: string, body: Record<string, unknown> = {}) {
  const res = await sbx.agent('POST', '/api/v1/runs', {
    token,
    userId: 'analyst-7',
    body: { question: 'What changed this week?', ...body },
  });
  expect(res.status).toBe(201);
  return res.body;
}

describe('agent run resource and lifecycle', () => {
  it('pending → running (progress phases) → completed with result and usage', async () => {
    const token = await demoCred();
    const run = await create(token, {
      mode: 'monitoring',
      time_window: '24h',
      available_credits: 3,
      metadata: { k: 1 },
    });
    expect(
      expectFields(run, {
        id: 'string',
        status: 'string',
        question: 'string',
        mode: 'string',
        parent_run_id: 'null',
        service_user_id: 'string',
        created_at: 'string',
        progress: 'null',
        result: 'null',
        usage: 'null',
        error: 'null',
      }),
    ).toEqual([]);
    expect(run.id).toMatch(UUID);
    expect(run.status).toBe('pending');
    expect(run.service_user_id).toBe('analyst-7');
    expect(run.created_at).toMatch(ISO_Z);

    await sbx.advance(2_000);
    const phases: string[] = [];
    for (const step of [0, 3_000, 6_000, 5_000, 3_000]) {
      await sbx.advance(step);
      const r = await getRun(token, run.id);
      expect(r.status).toBe('running');
      expect(
        expectFields(r.progress, {
          percentage: 'integer',
          phase: 'string',
          step_label: 'string',
          current_tool: 'string',
        }),
      ).toEqual([]);
      phases.push(r.progress.phase);
    }
    expect(phases).toEqual(['planning', 'searching', 'searching', 'analyzing', 'writing_report']);

    await sbx.advance(1_000);
    const done = await getRun(token, run.id);
    expect(done.status).toBe('completed');
    expect(done.progress).toBeNull();
    expect(done.error).toBeNull();
    expect(
      expectFields(done.result, {
        confidence_level: 'string',
        signals: 'array',
        evidence_links: 'array',
        report_markdown: 'string',
        report_html: 'string',
      }),
    ).toEqual([]);
    expect(['low', 'medium', 'high']).toContain(done.result.confidence_level);
    for (const s of done.result.signals) {
      expect(expectFields(s, { severity: 'string', label: 'string', description: 'string' })).toEqual([]);
      expect(['low', 'medium', 'high']).toContain(s.severity);
    }
    for (const l of done.result.evidence_links)
      expect(new URL(l).hostname).toMatch(/^example\.(com|org|net)$/);
    expect(done.result.report_markdown).toContain('What changed this week?');
    expect(
      expectFields(done.usage, {
        input_tokens: 'integer',
        output_tokens: 'integer',
        duration_ms: 'integer',
        cost_usd: 'number',
        available_credits: 'integer',
        credits_used: 'integer',
      }),
    ).toEqual([]);
    expect(done.usage.duration_ms).toBe(18_000);
    expect(done.usage.available_credits).toBe(3);
    expect(done.usage.credits_used).toBeGreaterThanOrEqual(1);
    expect(done.usage.credits_used).toBeLessThanOrEqual(3);
    const credits = (await sbx.control('GET', `/credentials/${token}`)).body.credits;
    expect(credits).toBe(100 - done.usage.credits_used);
  });

  it('the same question gives the same report', async () => {
    const token = await sbx.credential();
    const a = await create(token, { question: 'Deterministic?' });
    const b = await create(token, { question: 'Deterministic?' });
    expect(a.status).toBe('completed');
    expect(b.result).toEqual(a.result);
  });

  it('run summaries in lists: fields, no report, filters, limit/offset', async () => {
    const token = await sbx.credential();
    for (const [userId, q] of [
      ['u-a', 'one'],
      ['u-b', 'two'],
      ['u-a', 'three'],
    ]) {
      await sbx.agent('POST', '/api/v1/runs', { token, userId, body: { question: q } });
    }
    const list = await sbx.agent('GET', '/api/v1/runs', { token });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total: 3, limit: 50, offset: 0 });
    const item = list.body.runs[0];
    expect(
      expectFields(item, {
        id: 'string',
        status: 'string',
        question: 'string',
        mode: 'string',
        time_window: 'string',
        confidence_level: 'string',
        pinned: 'boolean',
        label: 'string',
        service_user_id: 'string',
        parent_run_id: 'null',
        created_at: 'string',
        error: 'null',
      }),
    ).toEqual([]);
    expect(item.time_window).toBe('7d');
    expect('result' in item).toBe(false);
    const mine = await sbx.agent('GET', '/api/v1/runs?user_id=u-a', { token });
    expect(mine.body.total).toBe(2);
    const paged = await sbx.agent('GET', '/api/v1/runs?limit=1&offset=1', { token });
    expect(paged.body.runs).toHaveLength(1);
    expect(paged.body.total).toBe(3);
    expect(paged.body.runs[0].id).toBe(list.body.runs[1].id);
    expect((await sbx.agent('GET', '/api/v1/runs?status=completed', { token })).body.total).toBe(3);
    expect((await sbx.agent('GET', '/api/v1/runs?status=pending', { token })).body.total).toBe(0);
  });

  it('follow-up run carries parent_run_id', async () => {
    const token = await sbx.credential();
    const parent = await create(token);
    const child = await create(token, { parent_run_id: parent.id });
    expect(child.parent_run_id).toBe(parent.id);
  });
});

describe('cancel', () => {
  it('pending → failed with cancelled true', async () => {
    const token = await demoCred();
    const run = await create(token);
    const res = await sbx.agent('POST', `/api/v1/runs/${run.id}/cancel`, { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: run.id, status: 'failed', cancelled: true });
    const r = await getRun(token, run.id);
    expect(r.status).toBe('failed');
    expect(typeof r.error).toBe('string');
    await sbx.advance(60_000);
    expect((await getRun(token, run.id)).status).toBe('failed');
  });

  it('running → failed', async () => {
    const token = await demoCred();
    const run = await create(token);
    await sbx.advance(5_000);
    expect((await getRun(token, run.id)).status).toBe('running');
    const res = await sbx.agent('POST', `/api/v1/runs/${run.id}/cancel`, { token });
    expect(res.body.cancelled).toBe(true);
    expect((await getRun(token, run.id)).status).toBe('failed');
  });

  it('completed or failed → 422, state unchanged', async () => {
    const token = await sbx.credential();
    const done = await create(token);
    expect(done.status).toBe('completed');
    const a = await sbx.agent('POST', `/api/v1/runs/${done.id}/cancel`, { token });
    expect(a.status).toBe(422);
    expect(typeof a.body.detail).toBe('string');
    expect((await getRun(token, done.id)).status).toBe('completed');
    const demo = await demoCred();
    const run = await create(demo);
    await sbx.agent('POST', `/api/v1/runs/${run.id}/cancel`, { token: demo });
    const again = await sbx.agent('POST', `/api/v1/runs/${run.id}/cancel`, { token: demo });
    expect(again.status).toBe(422);
  });
});

describe('rerun', () => {
  it('failed → pending (202) and runs again to completion', async () => {
    const token = await demoCred();
    const run = await create(token);
    await sbx.agent('POST', `/api/v1/runs/${run.id}/cancel`, { token });
    const res = await sbx.agent('POST', `/api/v1/runs/${run.id}/rerun`, { token });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ id: run.id, status: 'pending' });
    const r = await getRun(token, run.id);
    expect(r.status).toBe('pending');
    expect(r.error).toBeNull();
    await sbx.advance(20_000);
    expect((await getRun(token, run.id)).status).toBe('completed');
  });

  it('running → force-cancelled and re-enqueued as pending', async () => {
    const token = await demoCred();
    const run = await create(token);
    await sbx.advance(10_000);
    expect((await getRun(token, run.id)).status).toBe('running');
    const res = await sbx.agent('POST', `/api/v1/runs/${run.id}/rerun`, { token });
    expect(res.status).toBe(202);
    const r = await getRun(token, run.id);
    expect(r.status).toBe('pending');
    expect(r.progress).toBeNull();
  });

  it('completed → 422, state unchanged', async () => {
    const token = await sbx.credential();
    const done = await create(token);
    const res = await sbx.agent('POST', `/api/v1/runs/${done.id}/rerun`, { token });
    expect(res.status).toBe(422);
    const r = await getRun(token, done.id);
    expect(r.status).toBe('completed');
    expect(r.result).not.toBeNull();
  });

  it('rerun with too few credits → 402', async () => {
    const token = await demoCred(4);
    const run = await create(token);
    await sbx.agent('POST', `/api/v1/runs/${run.id}/cancel`, { token });
    await sbx.control('PATCH', `/credentials/${token}`, { credits: 1 });
    const res = await sbx.agent('POST', `/api/v1/runs/${run.id}/rerun`, { token });
    expect(res.status).toBe(402);
    expect((await getRun(token, run.id)).status).toBe('failed');
  });
});

describe('waiting and automatic resume', () => {
  it('backend unavailable → waiting; resumes at the next 2-minute attempt once it is back', async () => {
    const token = await demoCred();
    await sbx.control('PUT', '/faults', { token, backend_unavailable: true });
    const run = await create(token);
    await sbx.advance(2_000);
    const w = await getRun(token, run.id);
    expect(w.status).toBe('waiting');
    expect(w.progress).toBeNull();
    await sbx.advance(2 * MIN);
    expect((await getRun(token, run.id)).status).toBe('waiting');
    await sbx.control('DELETE', `/faults?token=${token}`);
    await sbx.advance(2 * MIN - 1);
    expect((await getRun(token, run.id)).status).toBe('waiting');
    await sbx.advance(1);
    const resumed = await getRun(token, run.id);
    expect(resumed.status).toBe('running');
    expect(resumed.resume_attempts).toBe(2);
    await sbx.advance(18_000);
    expect((await getRun(token, run.id)).status).toBe('completed');
  });

  it('fails after the 10th unsuccessful resume attempt', async () => {
    const token = await demoCred();
    await sbx.control('PUT', '/faults', { token, backend_unavailable: true });
    const run = await create(token);
    await sbx.advance(2_000 + 9 * 2 * MIN);
    const nine = await getRun(token, run.id);
    expect(nine.status).toBe('waiting');
    expect(nine.resume_attempts).toBe(9);
    await sbx.advance(2 * MIN);
    const failed = await getRun(token, run.id);
    expect(failed.status).toBe('failed');
    expect(failed.resume_attempts).toBe(10);
    expect(failed.error).toMatch(/10 resume attempts/);
    await sbx.control('DELETE', `/faults?token=${token}`);
  });

  it('a waiting run can be cancelled or rerun', async () => {
    const token = await demoCred();
    await sbx.control('PUT', '/faults', { token, backend_unavailable: true });
    const a = await create(token);
    const b = await create(token);
    await sbx.advance(2_000);
    expect((await sbx.agent('GET', '/api/v1/runs?status=waiting', { token })).body.total).toBe(2);
    expect((await sbx.agent('POST', `/api/v1/runs/${a.id}/cancel`, { token })).status).toBe(200);
    const rr = await sbx.agent('POST', `/api/v1/runs/${b.id}/rerun`, { token });
    expect(rr.status).toBe(202);
    expect((await getRun(token, b.id)).status).toBe('pending');
    await sbx.control('DELETE', `/faults?token=${token}`);
  });

  it('fail_runs fault: a run ends failed with an error string', async () => {
    const token = await sbx.credential();
    await sbx.control('PUT', '/faults', { token, fail_runs: true });
    const run = await create(token);
    expect(run.status).toBe('failed');
    expect(typeof run.error).toBe('string');
    expect(run.result).toBeNull();
    await sbx.control('DELETE', `/faults?token=${token}`);
  });
});

describe('PATCH, delete, visibility', () => {
  it('PATCH pinned and label → {id, pinned, label}; neither → 422', async () => {
    const token = await sbx.credential();
    const run = await create(token);
    const res = await sbx.agent('PATCH', `/api/v1/runs/${run.id}`, {
      token,
      body: { pinned: true, label: 'Weekly look' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: run.id, pinned: true, label: 'Weekly look' });
    const only = await sbx.agent('PATCH', `/api/v1/runs/${run.id}`, { token, body: { pinned: false } });
    expect(only.body).toEqual({ id: run.id, pinned: false, label: 'Weekly look' });
    const none = await sbx.agent('PATCH', `/api/v1/runs/${run.id}`, { token, body: {} });
    expect(none.status).toBe(422);
    expect(Array.isArray(none.body.detail)).toBe(true);
    const list = await sbx.agent('GET', '/api/v1/runs', { token });
    expect(list.body.runs[0]).toMatchObject({ pinned: false, label: 'Weekly look' });
  });

  it('DELETE a completed run → {id, discarded: true}; excluded from lists; a pending run → 422', async () => {
    const token = await demoCred();
    const pending = await create(token);
    const notYet = await sbx.agent('DELETE', `/api/v1/runs/${pending.id}`, { token });
    expect(notYet.status).toBe(422);
    await sbx.advance(20_000);
    const res = await sbx.agent('DELETE', `/api/v1/runs/${pending.id}`, { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: pending.id, discarded: true });
    expect((await sbx.agent('GET', '/api/v1/runs', { token })).body.total).toBe(0);
    expect((await sbx.agent('GET', `/api/v1/runs/${pending.id}`, { token })).status).toBe(404);
    const record = (await sbx.control('GET', `/credentials/${token}`)).body;
    expect(record.runs[0]).toMatchObject({ id: pending.id, discarded: true });
  });

  it('a run created outside the API answers 404 and is not listed', async () => {
    const token = await sbx.credential();
    const outside = await sbx.control('POST', '/outside-runs', { token });
    expect(outside.status).toBe(201);
    expect(outside.body.id).toMatch(UUID);
    expect((await sbx.agent('GET', `/api/v1/runs/${outside.body.id}`, { token })).status).toBe(404);
    expect((await sbx.agent('GET', '/api/v1/runs', { token })).body.total).toBe(0);
  });
});
