import type { TaskRow } from './task-store.js';

/**
 * A task as the tasks extension shows it (SEP-2663 "Tasks": Task, DetailedTask), in the order the
 * extension lists its fields. `taskId` is the id the client holds (the row keeps only its hash);
 * `result` is the stored tools/call result, the very object the synchronous call answers with.
 */
export interface TaskView {
  taskId: string;
  status: 'working' | 'completed' | 'cancelled' | 'failed';
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs?: number;
  result?: Record<string, unknown>;
}

/** The fewest and most milliseconds a working task's clients are told to wait between polls. */
export const POLL_INTERVAL_BOUNDS = { min: 1_000, max: 10_000 };

/**
 * How long a client should wait before polling again: until the job's next planned read upstream
 * (nothing it could read changes before), bounded. `nextPollAt` is unknown while a read is in flight.
 */
export function pollIntervalMs(nextPollAt: number | null, now: number, fallbackMs: number): number {
  const wait = nextPollAt === null ? fallbackMs : nextPollAt - now;
  return Math.min(POLL_INTERVAL_BOUNDS.max, Math.max(POLL_INTERVAL_BOUNDS.min, Math.round(wait)));
}

/** The task's view without its result (a CreateTaskResult's fields, or a working or ended task's). */
export function taskView(taskId: string, row: TaskRow, pollMs: number | null): TaskView {
  const view: TaskView = {
    taskId,
    status: row.status as TaskView['status'],
    ...(row.statusMessage ? { statusMessage: row.statusMessage } : {}),
    createdAt: new Date(row.createdAt).toISOString(),
    lastUpdatedAt: new Date(row.updatedAt).toISOString(),
    // The time to live counts from creation (the extension's definition): the row's expiry.
    ttlMs: row.expiresAt - row.createdAt,
  };
  if (row.status === 'working' && pollMs !== null) view.pollIntervalMs = pollMs;
  return view;
}

/** The view's fields between `taskId` and `pollIntervalMs` as JSON text, per row (a row is replaced, never changed). */
const middles = new WeakMap<TaskRow, string>();

/**
 * A tasks/get result's members as JSON text, without the braces around them (the answer's envelope is
 * written around them in one piece, ../sdk-bypass/task-wire.ts): the text of JSON.stringify(taskView(...)),
 * with the stored result spliced in as stored (it was written by JSON.stringify, so parsing and writing
 * it again gives the same text). Every working task's client repeats this read, and only the task id
 * and the poll interval change between two reads of one row: the rest is written once per row.
 */
export function taskGetFields(taskId: string, row: TaskRow, pollMs: number | null): string {
  let middle = middles.get(row);
  if (middle === undefined) {
    const { taskId: _id, pollIntervalMs: _poll, ...rest } = taskView('', row, null);
    middle = JSON.stringify(rest).slice(1, -1);
    middles.set(row, middle);
  }
  const poll = row.status === 'working' && pollMs !== null ? `,"pollIntervalMs":${pollMs}` : '';
  const result = row.status === 'completed' && row.result !== null ? `,"result":${row.result}` : '';
  return `"taskId":${JSON.stringify(taskId)},${middle}${poll}${result}`;
}
