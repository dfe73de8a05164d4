import { and, count, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { EVERYTHING } from '../../../src/db/store/index.js';
import {
  TASK_CREATIONS,
  WORKING_TASKS_PER_PERSON,
  WORKING_TASKS_PER_WORKSPACE,
} from '../../../src/mcp/tasks/task-limits.js';
import { revokeGrant } from '../../../src/oauth/grants.js';
import { hashToken } from '../../../src/security/tokens.js';
import { grantThroughCode, issueTestToken, type TestGrant } from '../../helpers/grants.js';
import { mcpBehaviourFixture } from '../../helpers/mcp-behaviour.js';
import { callTool, fillerTasks, getTask } from '../../helpers/tasks.js';

/**
 * Tasks are a resource with limits (docs/security.md, "Tasks"), on this run's engine: working tasks per
 * person and per workspace, exact under parallel submits; a creation rate per person; an identical
 * submit that reuses its job answers the task it already has; and a task answers to the grant that
 * created it, so a revoked app that connects again finds none of its old tasks.
 */
const fx = mcpBehaviourFixture();

async function member(): Promise<TestGrant> {
  const upstreamToken = await fx.h.credential({ speed: 'demo', credits: 1_000 });
  return issueTestToken(fx.h.server, { upstreamToken });
}

async function working(where: { userId?: string; workspaceId?: string }): Promise<number> {
  const { db } = fx.h.server;
  const t = db.t.tasks;
  const owner = where.userId
    ? eq(t.ownerUserId, where.userId)
    : eq(t.ownerWorkspaceId, where.workspaceId ?? '');
  const [row] = await db.orm
    .select({ n: count() })
    .from(t)
    .where(and(owner, eq(t.status, 'working')));
  return Number(row?.n ?? 0);
}

/** `n` working tasks of this owner stored directly, held by a lease elsewhere (nothing settles them). */
async function fill(owner: TestGrant, n: number, userId = owner.userId) {
  await fx.h.server.db.orm.insert(fx.h.server.db.t.tasks).values(fillerTasks(owner, n, userId));
}

const submit = (access: string, query: string) =>
  callTool(fx.h.mcpUrl, access, 'submit_keyword_search', { query, platforms: ['twitter'] });

describe('working tasks per person and per workspace', () => {
  it(`refuses a submit beyond ${WORKING_TASKS_PER_PERSON} working tasks of one person, naming the limit`, async () => {
    const owner = await member();
    await fill(owner, WORKING_TASKS_PER_PERSON);
    await fx.h.control('POST', '/clock', { freeze: true });
    const { message } = await submit(owner.accessToken, 'one too many');
    expect(message.result.isError).toBe(true);
    expect(message.result.content[0].text).toContain(`${WORKING_TASKS_PER_PERSON} working tasks`);
    expect(await working({ userId: owner.userId })).toBe(WORKING_TASKS_PER_PERSON);
  });

  it(`refuses a submit beyond ${WORKING_TASKS_PER_WORKSPACE} working tasks of one workspace`, async () => {
    const owner = await member();
    await fill(owner, WORKING_TASKS_PER_WORKSPACE, 'a-teammate');
    await fx.h.control('POST', '/clock', { freeze: true });
    const { message } = await submit(owner.accessToken, 'the workspace is full');
    expect(message.result.content[0].text).toMatch(/^This workspace has 100 working tasks/);
  });

  it('holds exactly under parallel submits', async () => {
    const owner = await member();
    await fill(owner, WORKING_TASKS_PER_PERSON - 3);
    await fx.h.control('POST', '/clock', { freeze: true });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => submit(owner.accessToken, `parallel ${i}`)),
    );
    const tasks = answers.filter((a) => a.message.result?.resultType === 'task');
    expect(tasks.length).toBeLessThanOrEqual(3);
    expect(await working({ userId: owner.userId })).toBeLessThanOrEqual(WORKING_TASKS_PER_PERSON);
  });
});

describe('the creation rate', () => {
  it(`creates at most ${TASK_CREATIONS.limit} tasks a minute per person, under parallel submits`, async () => {
    const owner = await member();
    await fx.h.control('POST', '/clock', { freeze: true });
    const answers = await Promise.all(
      Array.from({ length: TASK_CREATIONS.limit + 8 }, (_, i) => submit(owner.accessToken, `rate ${i}`)),
    );
    const tasks = answers.filter((a) => a.message.result?.resultType === 'task');
    const refused = answers.filter((a) =>
      /tasks in the last minute/.test(a.message.result?.content?.[0]?.text ?? ''),
    );
    expect(tasks.length).toBeLessThanOrEqual(TASK_CREATIONS.limit);
    expect(refused.length).toBeGreaterThanOrEqual(8);
    expect(await working({ userId: owner.userId })).toBe(tasks.length);
  });
});

describe('an identical submit', () => {
  it('that reuses its job answers the task it already has: no new row', async () => {
    const owner = await member();
    await fx.h.control('POST', '/clock', { freeze: true });
    const first = (await submit(owner.accessToken, 'same words')).message.result;
    const again = (await submit(owner.accessToken, 'same words')).message.result;
    expect(first.resultType).toBe('task');
    expect(again.taskId).toBe(first.taskId);
    expect(await working({ userId: owner.userId })).toBe(1);
  });
});

describe('a task answers to the grant that created it', () => {
  it('a revoked app that connects again (a new grant) finds its old tasks "not found"', async () => {
    const owner = await member();
    await fx.h.control('POST', '/clock', { freeze: true });
    const { taskId } = (await submit(owner.accessToken, 'before the revocation')).message.result;
    expect((await getTask(fx.h.mcpUrl, owner.accessToken, taskId)).message.result.status).toBe('working');
    const grant = (await fx.h.server.sql.get(
      'SELECT grant_id FROM oauth_tokens WHERE token_hash = ?',
      hashToken(owner.accessToken),
    )) as { grant_id: string };
    await revokeGrant(fx.h.server.db, grant.grant_id, 'revoked by user');
    await fx.h.server.db.invalidate(EVERYTHING);
    const again = await grantThroughCode(fx.h.server, {
      userId: owner.userId,
      workspaceId: owner.workspaceId,
      clientId: owner.clientId,
    });
    const { message } = await getTask(fx.h.mcpUrl, again.access_token, taskId);
    expect(message.error?.message).toBe('Failed to retrieve task: Task not found');
  });
});
