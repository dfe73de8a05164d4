/**
 * Task limits across instances (docs/security.md, "Tasks"): one person's task-creating submits sent at
 * once through a round-robin balancer to two server processes on one PostgreSQL database. The working
 * limit is held where the task is stored (one transaction locking the person's and the workspace's
 * rows) and the creation rate in one atomic statement, so splitting the submits over two instances
 * gains nothing: never more tasks stored than the limit. The sandbox clock is frozen, so no task ends
 * while the submits race; a submit that loses the race at the store waits as a plain call would, up to
 * SEARCH_MAX_WAIT_SECONDS (short here).
 */
import { and, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  TASK_CREATIONS,
  WORKING_TASKS_PER_PERSON,
  WORKING_TASKS_PER_WORKSPACE,
} from '../../src/mcp/tasks/task-limits.js';
import { issueTestToken, type TestGrant } from '../helpers/grants.js';
import type { Json } from '../helpers/harness.js';
import { callTool, fillerTasks } from '../helpers/tasks.js';
import { startTwoInstances, type TwoInstances } from '../helpers/two-instances.js';

let two: TwoInstances;

beforeAll(async () => {
  two = await startTwoInstances({ SEARCH_MAX_WAIT_SECONDS: '2' });
});

afterAll(async () => {
  await two?.close();
});

async function person(): Promise<TestGrant> {
  const upstreamToken = await two.sandbox.credential({ speed: 'demo', credits: 1_000 });
  return issueTestToken(two.view, { upstreamToken });
}

/** Tasks of this person stored as working, on the shared database. */
async function working(userId: string): Promise<number> {
  const t = two.store.t.tasks;
  const [row] = await two.store.orm
    .select({ n: count() })
    .from(t)
    .where(and(eq(t.ownerUserId, userId), eq(t.status, 'working')));
  return Number(row?.n ?? 0);
}

/** `n` working tasks of this person stored directly, held by a lease elsewhere (nothing settles them). */
async function fill(owner: TestGrant, n: number) {
  await two.store.orm.insert(two.store.t.tasks).values(fillerTasks(owner, n));
}

/** `n` distinct task-declaring submits at once through the balancer; the answers' results. */
async function submitsAtOnce(owner: TestGrant, n: number, label: string): Promise<Json[]> {
  const servedBefore = two.proxy.served.length;
  const answers = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      callTool(`${two.proxy.url}/mcp`, owner.accessToken, 'submit_keyword_search', {
        query: `${label} ${i}`,
        platforms: ['twitter'],
      }),
    ),
  );
  // Both instances took a share of them.
  expect(new Set(two.proxy.served.slice(servedBefore))).toEqual(new Set([0, 1]));
  return answers.map((a) => a.message.result);
}

const isTask = (r: Json) => r?.resultType === 'task';

describe('task limits over two instances on one PostgreSQL database', () => {
  it(`one person's parallel submits split over both instances: exactly ${WORKING_TASKS_PER_PERSON} working tasks stored, never more`, async () => {
    const owner = await person();
    await fill(owner, WORKING_TASKS_PER_PERSON - 3);
    await two.sandbox.control('POST', '/clock', { freeze: true });
    try {
      const results = await submitsAtOnce(owner, 12, 'split working');
      expect(results.filter(isTask)).toHaveLength(3);
      expect(await working(owner.userId)).toBe(WORKING_TASKS_PER_PERSON);
      // The others were refused naming the limit, or answered as plain calls; none is a task.
      for (const r of results.filter((x) => !isTask(x))) {
        // The person is their workspace's only member, so the workspace's limit may be the one met.
        expect(r.isError === true ? r.content[0].text : 'plain').toMatch(
          new RegExp(
            `^(You have ${WORKING_TASKS_PER_PERSON} working tasks|This workspace has ${WORKING_TASKS_PER_WORKSPACE} working tasks|plain$)`,
          ),
        );
      }
    } finally {
      await two.sandbox.control('POST', '/clock', { freeze: false });
    }
  });

  it(`one person's parallel submits split over both instances: at most ${TASK_CREATIONS.limit} tasks a minute, exactly`, async () => {
    const owner = await person();
    await two.sandbox.control('POST', '/clock', { freeze: true });
    try {
      const results = await submitsAtOnce(owner, TASK_CREATIONS.limit + 8, 'split rate');
      const refused = results.filter((r) => /tasks in the last minute/.test(r?.content?.[0]?.text ?? ''));
      expect(results.filter(isTask)).toHaveLength(TASK_CREATIONS.limit);
      expect(refused).toHaveLength(8);
      expect(await working(owner.userId)).toBe(TASK_CREATIONS.limit);
    } finally {
      await two.sandbox.control('POST', '/clock', { freeze: false });
    }
  });
});
