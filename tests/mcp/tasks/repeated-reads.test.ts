import { describe, expect, it } from 'vitest';
import type { BatchedAuditor } from '../../../src/audit/batched.js';
import { repeatedReadsAuditor } from '../../../src/audit/repeated-reads.js';
import type { ToolCallAudit } from '../../../src/audit/tool-calls.js';

/**
 * The counting of a task's repeated reads on its own clock (tests/mcp/tasks/tasks.test.ts checks the rows a
 * real server writes): rows queued for the batch are kept here as they would be written.
 */
function setUp() {
  let clock = 60_000;
  const rows: Array<{ event: ToolCallAudit; at: number }> = [];
  const batch: BatchedAuditor = {
    record: (event, at = clock) => void rows.push({ event, at }),
    flush: async () => {},
  };
  const reads = repeatedReadsAuditor(batch, { windowMs: 60_000, now: () => clock });
  const event: ToolCallAudit = {
    userId: 'u',
    workspaceId: 'w',
    clientId: 'c',
    tool: 'tasks/get',
    status: 'ok',
    durationMs: 1,
    detail: { job: 'run:7' },
  };
  /** One read as Tasks.get makes it: counted, or written as the window's first. */
  const read = (task: string, durationMs = 1) => {
    if (!reads.count(task, durationMs)) reads.record({ ...event, durationMs }, task);
  };
  return { rows, reads, read, tick: (ms: number) => (clock += ms) };
}

describe('a task read repeatedly within a minute', () => {
  it('is its first read as a row, then one row of the rest when the minute ends', () => {
    const { rows, read, tick } = setUp();
    read('a');
    for (let i = 0; i < 5; i++) {
      tick(1_000);
      read('a', 2 + i);
    }
    read('b');
    expect(rows.map((r) => r.event.detail)).toEqual([{ job: 'run:7' }, { job: 'run:7' }]);
    tick(60_000);
    read('a');
    // The minute's end wrote a's count (b had no further read), then the new minute's first read.
    expect(rows.slice(2).map((r) => [r.event.detail, r.event.durationMs, r.at])).toEqual([
      [{ job: 'run:7', reads: 5 }, 6, 65_000],
      [{ job: 'run:7' }, 1, 125_000],
    ]);
  });

  it('writes what it counted at a graceful stop', () => {
    const { rows, reads, read, tick } = setUp();
    for (let i = 0; i < 4; i++) {
      read('a');
      tick(10);
    }
    reads.flush();
    expect(rows.map((r) => r.event.detail)).toEqual([{ job: 'run:7' }, { job: 'run:7', reads: 3 }]);
    reads.flush();
    expect(rows).toHaveLength(2);
  });
});
