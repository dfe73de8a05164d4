import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeTasks, type TaskRow, TaskStore } from '../../../src/mcp/tasks/task-store.js';
import { testEngine } from '../../helpers/engine.js';
import { migratedTestStore, type TestStore } from '../../helpers/stores.js';

/**
 * The tasks table's rules on this run's engine, with two stores on one database standing for two
 * instances: a task ends once (a completion and a cancel race: one wins), a lease is renewed only by
 * its holder, a lapsed lease goes to exactly one of two instances claiming it at once, leases are given
 * back at shutdown, and housekeeping deletes tasks past their time to live.
 */
let ts: TestStore;
beforeAll(async () => {
  ts = await migratedTestStore(testEngine());
});
afterAll(async () => {
  await ts?.cleanup();
});

let n = 0;
function row(changes: Partial<TaskRow> = {}): TaskRow {
  n += 1;
  return {
    id: `task-hash-${n}`,
    ownerUserId: 'u',
    ownerClientId: 'c',
    ownerGrantId: 'g',
    ownerWorkspaceId: 'w',
    tool: 'start_agent_run',
    args: '{"question":"q"}',
    jobKind: 'run',
    jobId: `run-${n}`,
    reusedAgeMs: null,
    status: 'working',
    statusMessage: 'agent run created',
    createdAt: 1_000,
    updatedAt: 1_000,
    nextPollAt: null,
    result: null,
    leaseOwner: 'instance-a',
    leaseUntil: 31_000,
    expiresAt: 100_000,
    ...changes,
  };
}

describe('the tasks table', () => {
  it('a task ends once: of a completion and a cancel, the first wins; progress stops being written', async () => {
    const store = new TaskStore(ts.store);
    const t = row();
    await store.insert(t);
    expect(await store.read(t.id)).toMatchObject({ status: 'working', leaseOwner: 'instance-a' });
    expect(
      await store.progress(t.id, { statusMessage: 'half way', updatedAt: 2_000, nextPollAt: 7_000 }),
    ).toBe(true);
    const end = (status: 'completed' | 'cancelled') =>
      store.end(t.id, { status, statusMessage: status, result: null, updatedAt: 3_000, expiresAt: 90_000 });
    const [completed, cancelled] = await Promise.all([end('completed'), end('cancelled')]);
    expect([completed, cancelled].filter(Boolean)).toHaveLength(1);
    expect(await store.progress(t.id, { statusMessage: 'late', updatedAt: 4_000, nextPollAt: null })).toBe(
      false,
    );
    const ended = await store.read(t.id);
    expect(ended).toMatchObject({ leaseOwner: null, leaseUntil: 0, nextPollAt: null, expiresAt: 90_000 });
    expect(['completed', 'cancelled']).toContain(ended?.status);
  });

  it('leases: renewed by their holder only, a lapsed one taken by exactly one of two instances, given back at shutdown', async () => {
    const a = new TaskStore(ts.store);
    const b = new TaskStore(ts.reopen());
    const held = row({ leaseOwner: 'instance-a', leaseUntil: 50_000 });
    const lapsed = row({ leaseOwner: 'instance-dead', leaseUntil: 10_000 });
    await a.insert(held);
    await a.insert(lapsed);
    expect(await a.renew('instance-a', 60_000)).toContain(held.id);
    expect(await b.renew('instance-b', 60_000)).not.toContain(held.id);

    const [byA, byB] = await Promise.all([
      a.claimExpired('instance-a', 70_000, 20_000),
      b.claimExpired('instance-b', 70_000, 20_000),
    ]);
    const claimed = [...byA, ...byB].filter((r) => r.id === lapsed.id);
    expect(claimed).toHaveLength(1);
    // The one who lost sees the task is no longer free; a second claim of the same version fails too.
    expect(await b.claim(lapsed, 'instance-b', 80_000)).toBeUndefined();

    await a.release('instance-a');
    for (const id of [held.id, ...(byA.some((r) => r.id === lapsed.id) ? [lapsed.id] : [])]) {
      expect(await a.read(id)).toMatchObject({ leaseOwner: null, leaseUntil: 0 });
    }
    // Given back: the other instance takes it over at once.
    const resumed = await b.claimExpired('instance-b', 90_000, 20_000);
    expect(resumed.map((r) => r.id)).toContain(held.id);
  });

  it('housekeeping deletes tasks past their time to live', async () => {
    const store = new TaskStore(ts.store);
    const old = row({ status: 'completed', expiresAt: 5_000 });
    const fresh = row({ status: 'completed', expiresAt: 500_000 });
    await store.insert(old);
    await store.insert(fresh);
    expect(await purgeTasks(ts.store, 400_000)).toBeGreaterThanOrEqual(1);
    expect(await store.read(old.id)).toBeUndefined();
    expect(await store.read(fresh.id)).toBeTruthy();
  });
});
