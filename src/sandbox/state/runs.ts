import { randomUUID } from 'node:crypto';
import { iso } from '../clock.js';
import {
  RESUME_INTERVAL_MS,
  RESUME_MAX_ATTEMPTS,
  RUN_LABEL_DEFAULT_CHARS,
  RUN_PHASE_ENDS,
  RUN_PHASES,
  type RunMode,
  USD_PER_INPUT_TOKEN,
  USD_PER_OUTPUT_TOKEN,
} from '../constants.js';
import { agentReport } from '../synthetic/report.js';
import type { Json, JsonObject } from '../synthetic/shapes.js';
import type { Store } from './store.js';
import type { RunRecord } from './types.js';

export interface RunCreate {
  question: string;
  mode: RunMode;
  timeWindow: string;
  availableCredits: number;
  platforms: string[] | null;
  maxPost: number | null;
  parentRunId: string | null;
  metadata: Json;
}

/** Who starts a run and how: the credential and user it is made under, and what started it. */
export interface RunStart {
  token: string;
  userId: string;
  input: RunCreate;
  origin: RunRecord['origin'];
  /** The schedule that made it, when one did. */
  scheduleId?: string | null;
}

export function createRun(store: Store, start: RunStart, at: number = store.now()): RunRecord {
  const { token, userId, input, origin, scheduleId = null } = start;
  const run: RunRecord = {
    seq: store.sequence(),
    id: randomUUID(),
    token,
    userId,
    origin,
    scheduleId,
    question: input.question,
    mode: input.mode,
    timeWindow: input.timeWindow,
    availableCredits: input.availableCredits,
    platforms: input.platforms,
    maxPost: input.maxPost,
    metadata: input.metadata,
    parentRunId: input.parentRunId,
    pinned: false,
    label: input.question.slice(0, RUN_LABEL_DEFAULT_CHARS),
    discarded: false,
    createdAt: at,
    ...freshAttempt(store, token, at),
  };
  store.addRun(run);
  settleRun(store, run);
  return run;
}

/**
 * The state of an attempt that has not started: a new run, and a rerun, which starts over with the
 * timings and fault switches in force now.
 */
function freshAttempt(store: Store, token: string, at: number) {
  const profile = store.profileFor(token);
  return {
    status: 'pending',
    phaseStartedAt: at,
    pendingMs: profile.runPendingMs,
    runningMs: profile.runRunningMs,
    willFail: store.faults.effective(token).fail_runs === true,
    updatedAt: at,
    startedAt: null,
    completedAt: null,
    resumeAttempts: 0,
    nextResumeAt: null,
    error: null,
    result: null,
    usage: null,
    confidence: null,
    signalsCount: 0,
  } satisfies Partial<RunRecord>;
}

function backendDown(store: Store, run: RunRecord): boolean {
  return store.faults.effective(run.token).backend_unavailable === true;
}

function startRunning(run: RunRecord, at: number): void {
  run.status = 'running';
  run.phaseStartedAt = at;
  run.startedAt ??= at;
  run.updatedAt = at;
  run.nextResumeAt = null;
}

function fail(run: RunRecord, at: number, error: string): void {
  run.status = 'failed';
  run.phaseStartedAt = at;
  run.completedAt = at;
  run.updatedAt = at;
  run.error = error;
  run.nextResumeAt = null;
}

function complete(store: Store, run: RunRecord, at: number): void {
  const report = agentReport(run.question, run.mode, run.timeWindow);
  const cred = store.credentials.get(run.token);
  const wanted = Math.min(run.availableCredits, report.searches);
  const used = cred === undefined ? 0 : Math.max(0, Math.min(wanted, cred.credits));
  if (cred !== undefined) cred.credits -= used;
  run.status = 'completed';
  run.phaseStartedAt = at;
  run.completedAt = at;
  run.updatedAt = at;
  run.result = report.result;
  run.confidence = report.confidence;
  run.signalsCount = report.signalsCount;
  run.usage = {
    input_tokens: report.inputTokens,
    output_tokens: report.outputTokens,
    duration_ms: at - (run.startedAt ?? at),
    cost_usd:
      Math.round(
        (report.inputTokens * USD_PER_INPUT_TOKEN + report.outputTokens * USD_PER_OUTPUT_TOKEN) * 10_000,
      ) / 10_000,
    available_credits: run.availableCredits,
    credits_used: used,
  };
}

/**
 * Moves a run through every transition whose time has come, in order, so a clock jump replays what
 * happened in between. Backend availability is read from the faults as they are now. A run that ends
 * leaves the store's active set, so later settles no longer look at it.
 */
export function settleRun(store: Store, run: RunRecord, now: number = store.now()): void {
  advance(store, run, now);
  if (isTerminal(run)) store.activeRuns.delete(run);
  else store.activeRuns.add(run);
}

function advance(store: Store, run: RunRecord, now: number): void {
  for (let guard = 0; guard < 100; guard++) {
    if (run.status === 'pending') {
      const at = run.phaseStartedAt + run.pendingMs;
      if (now < at) return;
      if (backendDown(store, run)) {
        run.status = 'waiting';
        run.phaseStartedAt = at;
        run.updatedAt = at;
        run.nextResumeAt = at + RESUME_INTERVAL_MS;
      } else startRunning(run, at);
    } else if (run.status === 'running') {
      const at = run.phaseStartedAt + run.runningMs;
      if (now < at) return;
      if (run.willFail) fail(run, at, 'The agent stopped with an internal error (sandbox fault fail_runs).');
      else complete(store, run, at);
    } else if (run.status === 'waiting') {
      const at = run.nextResumeAt ?? now;
      if (now < at) return;
      run.resumeAttempts += 1;
      if (!backendDown(store, run)) startRunning(run, at);
      else if (run.resumeAttempts >= RESUME_MAX_ATTEMPTS) {
        fail(run, at, `Search backend unavailable; gave up after ${RESUME_MAX_ATTEMPTS} resume attempts.`);
      } else {
        run.nextResumeAt = at + RESUME_INTERVAL_MS;
        run.updatedAt = at;
      }
    } else return;
  }
}

/** Back to `pending` from scratch (rerun); a running run is force-cancelled first. */
export function requeue(store: Store, run: RunRecord): void {
  Object.assign(run, freshAttempt(store, run.token, store.now()));
  store.activeRuns.add(run);
}

export function cancelRun(store: Store, run: RunRecord): void {
  fail(run, store.now(), 'Cancelled by user');
  store.activeRuns.delete(run);
}

export function isTerminal(run: RunRecord): boolean {
  return run.status === 'completed' || run.status === 'failed';
}

function progress(run: RunRecord, now: number): JsonObject | null {
  if (run.status !== 'running') return null;
  const fraction = run.runningMs === 0 ? 1 : Math.min(1, (now - run.phaseStartedAt) / run.runningMs);
  const index = RUN_PHASE_ENDS.findIndex((b) => fraction < b);
  const phase = RUN_PHASES[index === -1 ? RUN_PHASES.length - 1 : index] ?? 'writing_report';
  const labels: Record<string, [string, string]> = {
    planning: ['Planning the research', 'plan_research'],
    searching: ['Searching social platforms', 'keyword_search'],
    analyzing: ['Analyzing collected posts', 'analyze_posts'],
    writing_report: ['Writing the report', 'write_report'],
  };
  const [stepLabel, tool] = labels[phase] ?? ['Working', 'none'];
  return {
    percentage: Math.min(99, Math.floor(fraction * 100)),
    phase,
    step_label: stepLabel,
    current_tool: tool,
  };
}

/** GET /api/v1/runs/{id} body. */
export function runRecordView(run: RunRecord, now: number): JsonObject {
  return {
    id: run.id,
    status: run.status,
    question: run.question,
    mode: run.mode,
    time_window: run.timeWindow,
    available_credits: run.availableCredits,
    platforms: run.platforms,
    max_post: run.maxPost,
    metadata: run.metadata,
    parent_run_id: run.parentRunId,
    schedule_id: run.scheduleId,
    service_user_id: run.userId,
    pinned: run.pinned,
    label: run.label,
    confidence_level: run.confidence,
    created_at: iso(run.createdAt),
    updated_at: iso(run.updatedAt),
    started_at: run.startedAt === null ? null : iso(run.startedAt),
    completed_at: run.completedAt === null ? null : iso(run.completedAt),
    progress: progress(run, now),
    result: run.result,
    usage: run.usage === null ? null : { ...run.usage },
    error: run.error,
    resume_attempts: run.resumeAttempts,
    next_resume_at: run.nextResumeAt === null ? null : iso(run.nextResumeAt),
  };
}

/** List item: no report. */
export function runSummaryView(run: RunRecord): JsonObject {
  return {
    id: run.id,
    status: run.status,
    question: run.question,
    mode: run.mode,
    time_window: run.timeWindow,
    confidence_level: run.confidence,
    pinned: run.pinned,
    label: run.label,
    service_user_id: run.userId,
    parent_run_id: run.parentRunId,
    created_at: iso(run.createdAt),
    error: run.error,
  };
}
