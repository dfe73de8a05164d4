/**
 * The fault suite at shortened timings in the normal test run (tests/helpers/fault-suite.ts): every
 * fault kind the sandbox injects, against the real server over HTTP, driven by real MCP clients. Two of
 * the three clients per fault kind, in turn, so each client meets six of the nine kinds and the run
 * stays short; `npm run faults -- --short` runs all three on every kind. Every call is answered, every
 * piece of work reaches its result, and upstream creates exactly the work asked for. How fast the calls
 * answer is measured by `npm run faults` (docs/long-running-calls.md, Figures), not asserted here: on a
 * shared machine a starved process answers late whatever the server does; the test only guards against
 * a stuck call (none may take more than the wait limit plus 10 s).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLIENTS,
  FAULT_KINDS,
  reportTable,
  runFaultSuite,
  SHORT,
  serverOptions,
} from '../helpers/fault-suite.js';
import { type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness(serverOptions(SHORT));
});
afterAll(async () => {
  await h?.close();
});

describe('the fault suite, shortened', () => {
  it('every fault kind: every call answered, work reaching its result, one create per work', async () => {
    const rows = await runFaultSuite(h, SHORT, FAULT_KINDS, (_fault, i) => [
      CLIENTS[i % 3] ?? 'v1',
      CLIENTS[(i + 1) % 3] ?? 'v2',
    ]);
    expect(new Set(rows.map((r) => r.fault))).toEqual(new Set(FAULT_KINDS.map((k) => k.name)));
    const table = reportTable(SHORT, rows);
    for (const r of rows) {
      const where = `${r.fault}, ${r.client}: ${r.problems.join('; ')}\n${table}`;
      expect(r.answered, where).toBe(r.calls);
      expect(r.longestMs, where).toBeLessThan(SHORT.waitMs + 10_000);
      expect(r.reachedResult, where).toBe(r.workAsked);
      expect(r.createdUpstream, where).toBe(r.workAsked);
    }
  }, 240_000);
});
