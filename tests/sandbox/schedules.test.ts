import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFields, type Sandbox, startSandbox, UUID } from '../helpers/sandbox-process.js';

let sbx: Sandbox;
beforeAll(async () => {
  sbx = await startSandbox();
  await sbx.control('POST', '/clock', { freeze: true });
});
afterAll(async () => {
  await sbx?.stop();
});

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Monday 2 March 2026, 10:00 UTC. */
async function resetClock() {
  await sbx.control('POST', '/clock', { set: '2026-03-02T10:00:00Z' });
}

const daily = {
  name: 'Morning brief',
  question: 'What moved overnight?',
  recurrence_type: 'daily',
  recurrence_time: '09:00',
  recurrence_timezone: 'Europe/Paris',
  starts_at: '2026-03-01T00:00:00Z',
};

async function create(token: string, body: Record<string, unknown>) {
  const res = await sbx.agent('POST', '/api/v1/schedules', { token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

describe('schedule resource and next_run_at', () => {
  it('create answers the schedule with its configuration and next_run_at in the time zone', async () => {
    await resetClock();
    const token = await sbx.credential();
    const s = await create(token, {
      ...daily,
      notify_email: 'team@example.com',
      notify_slack_bot_token: 'xoxb-secret',
    });
    expect(
      expectFields(s, {
        id: 'string',
        name: 'string',
        question: 'string',
        recurrence_type: 'string',
        recurrence_time: 'string',
        recurrence_timezone: 'string',
        starts_at: 'string',
        available_credits: 'integer',
        mode: 'string',
        time_window: 'string',
        paused: 'boolean',
        paused_at: 'null',
        next_run_at: 'string',
        created_at: 'string',
      }),
    ).toEqual([]);
    expect(s.id).toMatch(UUID);
    expect(s.available_credits).toBe(4);
    // 09:00 in Paris (UTC+1 in early March) on the next day, since today's 09:00 has passed.
    expect(s.next_run_at).toBe('2026-03-03T08:00:00.000Z');
    expect(JSON.stringify(s)).not.toContain('xoxb-secret');
    expect(s.has_slack_bot_token).toBe(true);
  });

  it('weekly uses the day of week (0 = Sunday); monthly clamps to the month’s last day', async () => {
    await resetClock();
    const token = await sbx.credential();
    const weekly = await create(token, {
      ...daily,
      recurrence_type: 'weekly',
      recurrence_day_of_week: 5,
      recurrence_time: '18:30',
      recurrence_timezone: 'America/New_York',
    });
    expect(weekly.next_run_at).toBe('2026-03-06T23:30:00.000Z');
    const monthly = await create(token, {
      ...daily,
      recurrence_type: 'monthly',
      recurrence_day_of_month: 31,
      recurrence_time: '00:00',
      recurrence_timezone: 'UTC',
      starts_at: '2026-04-01T00:00:00Z',
    });
    expect(monthly.next_run_at).toBe('2026-04-30T00:00:00.000Z');
  });

  it('validation: weekly without a day, monthly without a day, bad zone, bad time → 422, nothing created', async () => {
    const token = await sbx.credential();
    for (const body of [
      { ...daily, recurrence_type: 'weekly' },
      { ...daily, recurrence_type: 'monthly' },
      { ...daily, recurrence_timezone: 'Mars/Olympus' },
      { ...daily, recurrence_time: '25:00' },
      { ...daily, starts_at: 'tomorrow' },
      { ...daily, recurrence_type: 'hourly' },
      { question: 'no name' },
    ]) {
      const res = await sbx.agent('POST', '/api/v1/schedules', { token, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(Array.isArray(res.body.detail)).toBe(true);
    }
    expect((await sbx.agent('GET', '/api/v1/schedules', { token })).body.total).toBe(0);
  });

  it('list → {schedules, total, limit, offset}', async () => {
    const token = await sbx.credential();
    await create(token, daily);
    await create(token, { ...daily, name: 'Second' });
    const res = await sbx.agent('GET', '/api/v1/schedules?limit=1', { token });
    expect(res.body).toMatchObject({ total: 2, limit: 1, offset: 0 });
    expect(res.body.schedules).toHaveLength(1);
  });
});

describe('firing', () => {
  it('fires runs that appear in the schedule history and in the run list', async () => {
    await resetClock();
    const token = await sbx.credential();
    const s = await create(token, daily);
    await sbx.control('POST', '/clock', { set: '2026-03-03T08:00:00Z' });
    const got = await sbx.agent('GET', `/api/v1/schedules/${s.id}`, { token });
    expect(got.status).toBe(200);
    expect(got.body.next_run_at).toBe('2026-03-04T08:00:00.000Z');
    expect(got.body.recent_runs).toHaveLength(1);
    const sr = got.body.recent_runs[0];
    expect(
      expectFields(sr, {
        id: 'string',
        status: 'string',
        scheduled_for: 'string',
        started_at: 'string',
        ended_at: 'string',
        notified_at: 'string',
        created_at: 'string',
        agent_run_id: 'string',
        credits_used: 'integer',
        error: 'null',
        agent_run: 'object',
      }),
    ).toEqual([]);
    expect(sr.status).toBe('completed');
    expect(sr.scheduled_for).toBe('2026-03-03T08:00:00.000Z');
    expect(
      expectFields(sr.agent_run, {
        id: 'string',
        status: 'string',
        confidence_level: 'string',
        signals_count: 'integer',
        available_credits: 'integer',
        credits_used: 'integer',
        result_preview: 'string',
        created_at: 'string',
      }),
    ).toEqual([]);
    expect(sr.agent_run.result_preview.length).toBeLessThanOrEqual(300);
    expect(sr.credits_used).toBe(sr.agent_run.credits_used);
    const run = await sbx.agent('GET', `/api/v1/runs/${sr.agent_run_id}`, { token });
    expect(run.status).toBe(200);
    expect(run.body.question).toBe(daily.question);
    expect(run.body.result.report_markdown.startsWith(sr.agent_run.result_preview)).toBe(true);

    await sbx.advance(2 * DAY);
    const history = await sbx.agent('GET', `/api/v1/schedules/${s.id}/runs?limit=2`, { token });
    expect(history.body).toMatchObject({ total: 3, limit: 2, offset: 0 });
    expect(history.body.runs.map((r: { scheduled_for: string }) => r.scheduled_for)).toEqual([
      '2026-03-05T08:00:00.000Z',
      '2026-03-04T08:00:00.000Z',
    ]);
    expect((await sbx.agent('GET', '/api/v1/runs', { token })).body.total).toBe(3);
  });

  it('a schedule run is skipped when credits are short', async () => {
    await resetClock();
    const token = await sbx.credential({ credits: 2 });
    const s = await create(token, daily);
    await sbx.advance(DAY);
    const runs = (await sbx.agent('GET', `/api/v1/schedules/${s.id}/runs`, { token })).body.runs;
    expect(runs).toHaveLength(1);
    expect(runs[0].status).toBe('skipped');
    expect(runs[0].agent_run).toBeNull();
    expect(typeof runs[0].error).toBe('string');
  });

  it('once: runs a single time, then next_run_at is null', async () => {
    await resetClock();
    const token = await sbx.credential();
    const s = await create(token, { ...daily, recurrence_type: 'once' });
    expect(s.next_run_at).toBe('2026-03-03T08:00:00.000Z');
    await sbx.advance(3 * DAY);
    const got = (await sbx.agent('GET', `/api/v1/schedules/${s.id}`, { token })).body;
    expect(got.next_run_at).toBeNull();
    expect(got.recent_runs).toHaveLength(1);
  });
});

describe('pause, resume, PATCH, delete', () => {
  it('pause → paused true, paused_at set, next_run_at null, history kept, nothing fires', async () => {
    await resetClock();
    const token = await sbx.credential();
    const s = await create(token, daily);
    await sbx.advance(DAY);
    const paused = await sbx.agent('POST', `/api/v1/schedules/${s.id}/pause`, { token });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({
      id: s.id,
      paused: true,
      paused_at: '2026-03-03T10:00:00.000Z',
      next_run_at: null,
    });
    expect(paused.body.name).toBe(daily.name);
    await sbx.advance(3 * DAY);
    const got = (await sbx.agent('GET', `/api/v1/schedules/${s.id}`, { token })).body;
    expect(got.recent_runs).toHaveLength(1);
    const resumed = await sbx.agent('POST', `/api/v1/schedules/${s.id}/resume`, { token });
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({
      paused: false,
      paused_at: null,
      next_run_at: '2026-03-07T08:00:00.000Z',
    });
  });

  it('PATCH recalculates next_run_at when the recurrence changes; bad or empty PATCH → 422, unchanged', async () => {
    await resetClock();
    const token = await sbx.credential();
    const s = await create(token, daily);
    const res = await sbx.agent('PATCH', `/api/v1/schedules/${s.id}`, {
      token,
      body: { recurrence_time: '12:15', name: 'Noon brief' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Noon brief',
      recurrence_time: '12:15',
      next_run_at: '2026-03-02T11:15:00.000Z',
    });
    const bad = await sbx.agent('PATCH', `/api/v1/schedules/${s.id}`, {
      token,
      body: { recurrence_type: 'weekly' },
    });
    expect(bad.status).toBe(422);
    const empty = await sbx.agent('PATCH', `/api/v1/schedules/${s.id}`, { token, body: {} });
    expect(empty.status).toBe(422);
    const after = (await sbx.agent('GET', `/api/v1/schedules/${s.id}`, { token })).body;
    expect(after.recurrence_type).toBe('daily');
    expect(after.name).toBe('Noon brief');
  });

  it('DELETE → {message}; the schedule and its history are gone', async () => {
    await resetClock();
    const token = await sbx.credential();
    const s = await create(token, daily);
    await sbx.advance(DAY);
    const res = await sbx.agent('DELETE', `/api/v1/schedules/${s.id}`, { token });
    expect(res.status).toBe(200);
    expect(typeof res.body.message).toBe('string');
    expect((await sbx.agent('GET', `/api/v1/schedules/${s.id}`, { token })).status).toBe(404);
    expect((await sbx.agent('GET', `/api/v1/schedules/${s.id}/runs`, { token })).status).toBe(404);
    expect((await sbx.agent('GET', '/api/v1/schedules', { token })).body.total).toBe(0);
  });

  it('schedules of another credential are invisible', async () => {
    const token = await sbx.credential();
    const s = await create(token, daily);
    const other = await sbx.credential();
    expect((await sbx.agent('GET', `/api/v1/schedules/${s.id}`, { token: other })).status).toBe(404);
    expect((await sbx.agent('POST', `/api/v1/schedules/${s.id}/pause`, { token: other })).status).toBe(404);
  });
});
