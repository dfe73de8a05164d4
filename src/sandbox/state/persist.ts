import { trackSchedule } from '../schedules.js';
import { isTerminal } from './runs.js';
import { webhookDueAt } from './searches.js';
import type { Store, StoreCounters } from './store.js';
import type {
  Credential,
  ExpertRecord,
  RunRecord,
  ScheduleRecord,
  ScheduleRunRecord,
  SearchRecord,
} from './types.js';

/** Bumped when the shape changes; a snapshot of another version is ignored (the sandbox starts empty). */
export const SNAPSHOT_VERSION = 1;

/**
 * Everything a person's tools depend on, as plain JSON: credentials (with their credits), searches,
 * expert searches, runs, schedules and their history, and the id counters. Left out on purpose: the
 * request log, webhook delivery log and faults (diagnostics of one session of tests), and the clock.
 * Synthetic data is not stored: it is derived from the records when read (datasets.ts).
 */
export interface SandboxSnapshot {
  version: typeof SNAPSHOT_VERSION;
  counters: StoreCounters;
  credentials: Credential[];
  searches: SearchRecord[];
  expertSearches: ExpertRecord[];
  runs: RunRecord[];
  schedules: ScheduleRecord[];
  scheduleRuns: ScheduleRunRecord[];
  /** Searches whose webhook has not gone out yet, by kind and id. */
  pendingWebhooks: Array<{ kind: 'keyword' | 'user' | 'expert'; id: number }>;
}

export function snapshotStore(store: Store): SandboxSnapshot {
  return {
    version: SNAPSHOT_VERSION,
    counters: store.counters(),
    credentials: [...store.credentials.values()],
    searches: [...store.keywordSearches.values(), ...store.userSearches.values()],
    expertSearches: [...store.expertSearches.values()],
    runs: [...store.runs.values()].sort((a, b) => a.seq - b.seq),
    schedules: [...store.schedules.values()].sort((a, b) => a.seq - b.seq),
    scheduleRuns: [...store.scheduleRuns.values()],
    pendingWebhooks: [...store.pendingWebhooks.keys()].map((rec) => ({
      kind: 'kind' in rec ? rec.kind : 'expert',
      id: rec.id,
    })),
  };
}

/**
 * Loads a snapshot into an empty store through the same methods requests use, then rebuilds the
 * derived sets (active runs, armed schedules, pending webhooks). Returns false, changing nothing,
 * when the snapshot is not one this version wrote.
 */
export function restoreStore(store: Store, snapshot: unknown): boolean {
  if (!isSnapshot(snapshot)) return false;
  for (const cred of snapshot.credentials) store.credentials.set(cred.token, cred);
  for (const rec of snapshot.searches) store.addSearch(rec);
  for (const rec of snapshot.expertSearches) store.addExpertSearch(rec);
  for (const run of snapshot.runs) {
    store.addRun(run);
    if (!isTerminal(run)) store.activeRuns.add(run);
  }
  for (const s of snapshot.schedules) {
    store.addSchedule(s);
    trackSchedule(store, s);
  }
  // Snapshots list history in the order it fired (Map insertion order), which addScheduleRun keeps.
  for (const r of snapshot.scheduleRuns) store.addScheduleRun(r);
  for (const p of snapshot.pendingWebhooks) {
    const rec =
      p.kind === 'expert'
        ? store.expertSearches.get(p.id)
        : (p.kind === 'keyword' ? store.keywordSearches : store.userSearches).get(p.id);
    if (rec) store.pendingWebhooks.set(rec, webhookDueAt(rec));
  }
  store.restoreCounters(snapshot.counters);
  return true;
}

function isSnapshot(value: unknown): value is SandboxSnapshot {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<SandboxSnapshot>;
  return (
    v.version === SNAPSHOT_VERSION &&
    typeof v.counters === 'object' &&
    [
      v.credentials,
      v.searches,
      v.expertSearches,
      v.runs,
      v.schedules,
      v.scheduleRuns,
      v.pendingWebhooks,
    ].every(Array.isArray)
  );
}
