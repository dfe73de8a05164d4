import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type InProc, inProcSandbox } from '../helpers/sandbox-inproc.js';

/**
 * Settling (every request and every tick) looks only at what is in progress: the store's active runs
 * and armed schedules. These tests watch those sets shrink as things finish, and check that settling
 * still follows creation order when a rerun puts an old run back.
 */

const T0 = Date.parse('2026-06-01T12:00:00Z');
let s: InProc;
let token: string;
beforeEach(() => {
  s = inProcSandbox(T0, 'demo');
  token = s.app.sandbox.store.createCredential({ credits: 1_000 }).token;
});
afterEach(() => s.dispose());

const agent = async (method: string, path: string, body?: unknown) => {
  const res = await s.req(method, `/agent/api/v1${path}`, { token, userId: 'u', body });
  return { status: res.status, body: JSON.parse(res.text) };
};
/** Any request settles state first; this one has no other effect. */
const settle = () => s.req('GET', '/api/iq/credits', { token, userId: 'u' });

describe('active runs', () => {
  it('a run leaves the active set when it completes, fails or is cancelled, and a rerun puts it back', async () => {
    const store = s.app.sandbox.store;
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await agent('POST', '/runs', { question: `question ${i}`, available_credits: 1 });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    expect(store.activeRuns.size).toBe(4);
    expect((await agent('POST', `/runs/${ids[0]}/cancel`)).status).toBe(200);
    expect(store.activeRuns.size).toBe(3);
    s.advance(60_000);
    await settle();
    expect(store.activeRuns.size).toBe(0);
    expect((await agent('GET', '/runs?status=completed')).body.total).toBe(3);
    expect((await agent('POST', `/runs/${ids[0]}/rerun`)).status).toBe(202);
    expect(store.activeRuns.size).toBe(1);
    s.advance(60_000);
    await settle();
    expect(store.activeRuns.size).toBe(0);
    expect(store.runs.size).toBe(4);
  });

  it('a waiting run stays active through its resume attempts and leaves when it gives up', async () => {
    const store = s.app.sandbox.store;
    await s.control('PUT', '/faults', { token, backend_unavailable: true });
    const run = await agent('POST', '/runs', { question: 'stuck' });
    s.advance(5_000);
    await settle();
    expect((await agent('GET', `/runs/${run.body.id}`)).body.status).toBe('waiting');
    expect(store.activeRuns.size).toBe(1);
    s.advance(10 * 120_000);
    await settle();
    expect((await agent('GET', `/runs/${run.body.id}`)).body.status).toBe('failed');
    expect(store.activeRuns.size).toBe(0);
  });

  it('runs finishing in one settle are settled in creation order, a rerun included', async () => {
    // A is created first, cancelled and rerun after B exists; with one credit left for both, the
    // first settled takes it. Creation order says A, whatever order they re-entered the set in.
    const a = (await agent('POST', '/runs', { question: 'first created', available_credits: 2 })).body.id;
    const b = (await agent('POST', '/runs', { question: 'second created', available_credits: 2 })).body.id;
    await agent('POST', `/runs/${a}/cancel`);
    expect((await agent('POST', `/runs/${a}/rerun`)).status).toBe(202);
    await s.control('PATCH', `/credentials/${token}`, { credits: 1 });
    s.advance(60_000);
    await settle();
    const used = async (id: string) => (await agent('GET', `/runs/${id}`)).body.usage.credits_used;
    expect(await used(a)).toBe(1);
    expect(await used(b)).toBe(0);
  });
});

describe('armed schedules', () => {
  const schedule = (extra: object) =>
    agent('POST', '/schedules', {
      name: 'n',
      question: 'q',
      recurrence_time: '12:01',
      recurrence_timezone: 'UTC',
      starts_at: '2026-06-01T00:00:00Z',
      ...extra,
    });

  it('a once schedule leaves the armed set after it fired; pause, resume and delete move a daily one', async () => {
    const store = s.app.sandbox.store;
    const once = await schedule({ recurrence_type: 'once' });
    const daily = await schedule({ recurrence_type: 'daily' });
    expect(store.armedSchedules.size).toBe(2);
    s.advance(65_000); // both fired at 12:01; their runs are still running
    await settle();
    expect(store.armedSchedules.size).toBe(1);
    expect((await agent('GET', `/schedules/${once.body.id}`)).body.next_run_at).toBeNull();
    expect(store.activeRuns.size).toBe(2);

    await agent('POST', `/schedules/${daily.body.id}/pause`);
    expect(store.armedSchedules.size).toBe(0);
    await agent('POST', `/schedules/${daily.body.id}/resume`);
    expect(store.armedSchedules.size).toBe(1);
    s.advance(86_400_000);
    await settle();
    expect((await agent('GET', `/schedules/${daily.body.id}/runs`)).body.total).toBe(2);

    const before = store.scheduleRuns.size;
    expect((await agent('DELETE', `/schedules/${daily.body.id}`)).status).toBe(200);
    expect(store.armedSchedules.size).toBe(0);
    expect(store.scheduleRuns.size).toBe(before - 2);
    s.advance(86_400_000);
    await settle();
    expect(store.scheduleRuns.size).toBe(before - 2);
  });
});
