import type { RecurrenceType, RunMode, RunStatus, ScheduleRunStatus } from '../constants.js';
import type { Speed } from '../speed.js';
import type { Json, JsonObject } from '../synthetic/shapes.js';

export interface Credential {
  token: string;
  name: string;
  credits: number;
  producer: boolean;
  createdAt: number;
  /** Overrides the sandbox speed for this credential's new searches and runs. */
  speed: Speed | null;
  returnUrl: string | null;
  /**
   * Synthetic posts per platform for this credential's new searches (before max_post trims them),
   * instead of SYNTH_POSTS_MIN–MAX: lets a test make a search as large as a real one (control API).
   */
  synthPosts: number | null;
}

/** Durations fixed when a search or run is created, so a later speed change does not rewrite history. */
export interface SearchPlan {
  pendingMs: number;
  startedMs: number;
  /** "finished" without results for this long (fault). */
  resultsLagMs: number;
  fail: boolean;
}

/**
 * A keyword or user search: what was asked and its plan, a few hundred bytes. Its synthetic data is
 * derived from these inputs when read (state/datasets.ts), never stored here.
 */
export interface SearchRecord {
  kind: 'keyword' | 'user';
  id: number;
  token: string;
  userId: string;
  query: string;
  /** Keyword: searched platforms. User: [platform]. */
  platforms: string[];
  startDate: string;
  endDate: string;
  maxPost: number;
  /** The credential's `synthPosts` when the search was created (fixed, like its plan). */
  synthPosts: number | null;
  createdAt: number;
  plan: SearchPlan;
  webhookSent: boolean;
}

export interface ExpertRecord {
  id: number;
  token: string;
  userId: string;
  query: string;
  createdAt: number;
  plan: SearchPlan;
  webhookSent: boolean;
}

export interface RunUsage {
  input_tokens: number;
  output_tokens: number;
  duration_ms: number;
  cost_usd: number;
  available_credits: number;
  credits_used: number;
}

export interface RunRecord {
  /** Creation order (store.sequence()), which settling follows. */
  seq: number;
  id: string;
  token: string;
  userId: string;
  /** `outside`: created outside the API (GET answers 404); `schedule`: fired by a schedule. */
  origin: 'api' | 'outside' | 'schedule';
  scheduleId: string | null;
  question: string;
  mode: RunMode;
  timeWindow: string;
  availableCredits: number;
  platforms: string[] | null;
  maxPost: number | null;
  metadata: Json;
  parentRunId: string | null;
  pinned: boolean;
  label: string;
  discarded: boolean;
  status: RunStatus;
  /** When the current status began (sandbox ms). */
  phaseStartedAt: number;
  pendingMs: number;
  runningMs: number;
  /** Fault captured at (re)start: the run fails instead of completing. */
  willFail: boolean;
  createdAt: number;
  updatedAt: number;
  startedAt: number | null;
  completedAt: number | null;
  resumeAttempts: number;
  nextResumeAt: number | null;
  error: string | null;
  result: JsonObject | null;
  usage: RunUsage | null;
  confidence: string | null;
  signalsCount: number;
}

export interface ScheduleRecord {
  /** Creation order (store.sequence()), which settling follows. */
  seq: number;
  id: string;
  token: string;
  userId: string;
  name: string;
  question: string;
  recurrenceType: RecurrenceType;
  recurrenceTime: string;
  recurrenceTimezone: string;
  recurrenceDayOfWeek: number | null;
  recurrenceDayOfMonth: number | null;
  startsAt: number;
  endsAt: number | null;
  availableCredits: number;
  mode: RunMode;
  timeWindow: string;
  platforms: string[] | null;
  maxPost: number | null;
  notifyEmail: string | null;
  notifySlackWebhook: string | null;
  notifySlackChannelId: string | null;
  /** Write-only: stored, never returned. */
  slackBotToken: string | null;
  paused: boolean;
  pausedAt: number | null;
  nextRunAt: number | null;
  lastRunAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface ScheduleRunRecord {
  id: string;
  scheduleId: string;
  scheduledFor: number;
  createdAt: number;
  agentRunId: string | null;
  /** Set for runs that never started (skipped). */
  fixedStatus: ScheduleRunStatus | null;
  error: string | null;
}

/** One webhook attempt as recorded (the control API adds the payload, see webhooks.ts deliveryView). */
export interface WebhookDelivery {
  id: number;
  token: string;
  kind: 'keyword' | 'user' | 'expert';
  search_id: number;
  url: string;
  attempted_at: string;
  status: number | null;
  error: string | null;
  duration_ms: number | null;
  /** The search whose GET payload at `attemptedAtMs` was the body sent. */
  search: SearchRecord | ExpertRecord;
  attemptedAtMs: number;
}

export interface RequestLogEntry {
  method: string;
  host: 'search' | 'agent';
  path: string;
  query: string;
  user_id: string | null;
  /** The W3C trace context the caller sent, if any (a traced gateway sends one per request). */
  traceparent: string | null;
  time: string;
  /** null while in flight, and for a connection the sandbox dropped (fault `reset`). */
  status: number | null;
  /** The request fault that fired on it (`error`, `rate_limit`, `hang`, `reset`), or null. */
  fault: 'error' | 'rate_limit' | 'hang' | 'reset' | null;
}
