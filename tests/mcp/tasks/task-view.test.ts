import { describe, expect, it } from 'vitest';
import type { TaskRow } from '../../../src/mcp/tasks/task-store.js';
import { taskGetFields, taskView } from '../../../src/mcp/tasks/task-view.js';

const working: TaskRow = {
  id: 'hash',
  ownerUserId: 'u',
  ownerClientId: 'c',
  ownerGrantId: 'g',
  ownerWorkspaceId: 'w',
  tool: 'start_agent_run',
  args: '{}',
  jobKind: 'run',
  jobId: '7',
  reusedAgeMs: null,
  status: 'working',
  statusMessage: 'Agent run 7: "searching" (40 %)',
  createdAt: 1_764_000_000_000,
  updatedAt: 1_764_000_004_321,
  nextPollAt: null,
  result: null,
  leaseOwner: 'i',
  leaseUntil: 0,
  expiresAt: 1_764_000_000_000 + 30 * 3_600_000,
};
const result = { content: [{ type: 'text', text: 'Done "here"' }], structuredContent: { completed: true } };

/** The text tasks/get answers must be JSON.stringify of the task's view with its stored result. */
function expected(taskId: string, row: TaskRow, pollMs: number | null): string {
  const view: Record<string, unknown> = { ...taskView(taskId, row, pollMs) };
  if (row.status === 'completed' && row.result !== null) view.result = JSON.parse(row.result);
  return JSON.stringify(view);
}

describe('a tasks/get result as text', () => {
  it.each([
    ['working, with a poll interval', working, 4_000],
    ['working, the same row read again', working, 9_999],
    ['working, without a status message', { ...working, statusMessage: null }, 1_000],
    [
      'completed, with its stored result',
      { ...working, status: 'completed', result: JSON.stringify(result) },
      5,
    ],
    ['cancelled', { ...working, status: 'cancelled', statusMessage: 'Cancelled.' }, 3_000],
  ] as const)('%s is the view written by JSON.stringify', (_label, row, pollMs) => {
    const taskId = 'sim_tk_abc-"def"';
    expect(`{${taskGetFields(taskId, row, pollMs)}}`).toBe(expected(taskId, row, pollMs));
  });
});
