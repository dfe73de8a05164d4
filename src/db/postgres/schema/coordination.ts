import { bigint, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

/** PostgreSQL twin of ../../schema/coordination.ts. */
export const rateLimitHits = pgTable(
  'rate_limit_hits',
  {
    key: text('key').notNull(),
    windowStart: bigint('window_start', { mode: 'number' }).notNull(),
    hits: integer('hits').notNull(),
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.key, t.windowStart] }),
    index('rate_limit_hits_expires_idx').on(t.expiresAt),
  ],
);

export const waitingCalls = pgTable(
  'waiting_calls',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    grantId: text('grant_id').notNull(),
    requestKey: text('request_key').notNull(),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
  },
  (t) => [
    index('waiting_calls_request_idx').on(t.grantId, t.requestKey),
    index('waiting_calls_expires_idx').on(t.expiresAt),
  ],
);

export const recentSubmits = pgTable(
  'recent_submits',
  {
    keyHash: text('key_hash').primaryKey(),
    kind: text('kind').notNull(),
    jobId: text('job_id'),
    holder: text('holder'),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    seenRunningAt: bigint('seen_running_at', { mode: 'number' }).notNull(),
    finishedAt: bigint('finished_at', { mode: 'number' }),
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
  },
  (t) => [
    index('recent_submits_job_idx').on(t.kind, t.jobId),
    index('recent_submits_expires_idx').on(t.expiresAt),
  ],
);
