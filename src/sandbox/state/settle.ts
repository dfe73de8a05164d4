import { settleSchedule } from '../schedules.js';
import type { WebhookPost } from '../webhook-post.js';
import { settleWebhooks } from '../webhooks.js';
import { settleRun } from './runs.js';
import type { Store } from './store.js';

/**
 * Brings all time-driven state up to the clock: schedules fire first (so their runs exist), then
 * runs advance, then finished searches send their webhooks. Called on every request and by a tick, so
 * it looks only at what is still in progress (armed schedules, active runs, pending webhooks), each in
 * creation order; finished things leave those sets when they finish.
 */
export function settleAll(store: Store, inflight: Set<Promise<void>>, post: WebhookPost): void {
  const now = store.now();
  for (const s of store.armedSchedules) settleSchedule(store, s, now);
  for (const run of store.activeRuns) settleRun(store, run, now);
  settleWebhooks(store, inflight, post);
}
