/**
 * What this round's checks on every /mcp request cost a proxied tools/call, each timed alone on the
 * captured request's body in this process (the same functions the gateway runs): the body limits
 * (nesting depth read before parsing; the id's length and `params._meta`'s size after), the tasks
 * extension's checks a plain call passes (is it a tasks/get, did it declare tasks: the task limits
 * themselves run only when a task is created), and OpenTelemetry off (a property read where a span
 * would start: the handler, the call's outcome, the upstream attempt, the access log line). Each is
 * set against the proxied call's server CPU, so "free on the hot path" is a figure, not a claim.
 */
import { messageRefusal, textRefusal } from '../../src/mcp/request-limits.js';
import { taskGetPath } from '../../src/mcp/sdk-bypass/paths.js';
import { declaresTasks } from '../../src/mcp/tasks/declaration.js';
import { otel } from '../../src/telemetry/index.js';
import { median, round } from '../lib/stats.js';
import type { Row } from '../report.js';

export interface HotPathSample {
  /** Nanoseconds per request of each check. */
  bodyLimitsNs: number;
  taskChecksNs: number;
  otelOffNs: number;
}

/** Where a proxied tools/call reads whether tracing is on (src/telemetry/index.ts's `otel.on`). */
const OTEL_READS_PER_CALL = 4;
const BATCHES = 15;
const PER_BATCH = 20_000;

let sink = 0;

/**
 * The median over batches of one run of `work`: this process's CPU time in nanoseconds (a warm-up batch
 * first). CPU time, not elapsed time: on a shared machine the process waits for a core in between.
 */
function nsPerRun(work: () => number): number {
  const batch = () => {
    const started = process.cpuUsage();
    for (let i = 0; i < PER_BATCH; i++) sink += work();
    const used = process.cpuUsage(started);
    return ((used.user + used.system) * 1000) / PER_BATCH;
  };
  batch();
  const times: number[] = [];
  for (let b = 0; b < BATCHES; b++) times.push(batch());
  return median(times);
}

export function hotPathChecks(toolsCallBody: string): HotPathSample {
  // The body as the route reads it: a fresh parse each time would time JSON.parse, which was there before.
  const parsed: unknown = JSON.parse(toolsCallBody);
  const request = new Request('http://127.0.0.1/mcp', { method: 'POST' });
  const sample = {
    bodyLimitsNs: nsPerRun(
      () => (textRefusal(toolsCallBody) ? 1 : 0) + (messageRefusal(parsed, toolsCallBody.length) ? 1 : 0),
    ),
    taskChecksNs: nsPerRun(
      () => (taskGetPath(request, parsed, true, 'full') ? 1 : 0) + (declaresTasks(parsed) ? 1 : 0),
    ),
    otelOffNs: nsPerRun(() => {
      let on = 0;
      for (let i = 0; i < OTEL_READS_PER_CALL; i++) if (otel.on) on++;
      return on;
    }),
  };
  if (sink < 0) throw new Error('unreachable');
  return sample;
}

/** One row per check: its cost per request and its share of the proxied call's server CPU (µs). */
export function hotPathRows(sample: HotPathSample, proxiedCpuUs: number): Row[] {
  const line = (figure: string, ns: number): Row => {
    const share = (ns / 1000 / proxiedCpuUs) * 100;
    return {
      figure,
      value: `${round(ns, 0)} ns per call = ${round(share, 3)} % of its CPU`,
      target: '≤ 1 % (free on the hot path)',
      met: share <= 1,
    };
  };
  return [
    line('hot path: body depth, id and _meta limits (a proxied tools/call)', sample.bodyLimitsNs),
    line(
      'hot path: tasks checks a plain call passes (task limits run only at creation)',
      sample.taskChecksNs,
    ),
    line(`hot path: OpenTelemetry off (${OTEL_READS_PER_CALL} reads of otel.on per call)`, sample.otelOffNs),
  ];
}
