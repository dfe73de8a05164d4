import { settleSchedule } from '../schedules.js';
import { settleWebhooks } from '../webhooks.js';
import { settleRun } from './runs.js';
import type { Store } from './store.js';

/**
 * Brings all time-driven state up to the clock: schedules fire first (so their runs exist), then
 * runs advance, then finished searches send their webhooks. Called on every request and by a tick.
 */
export function settleAll(store: Store, inflight: Set<Promise<void>>): void {
  const now = store.now();
  for (const s of store.schedules.values()) settleSchedule(store, s, now);
  for (const run of store.runs.values()) {
    if (run.status !== 'completed' && run.status !== 'failed') settleRun(store, run, now);
  }
  settleWebhooks(store, inflight);
}
