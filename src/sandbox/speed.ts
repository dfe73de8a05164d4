/** How long things take in sandbox time, per SANDBOX_SPEED. */
export type Speed = 'instant' | 'demo' | 'realistic';
export const SPEEDS: readonly Speed[] = ['instant', 'demo', 'realistic'];
export const DEFAULT_SPEED: Speed = 'demo';

export interface SpeedProfile {
  /** Search: queued before collection starts. */
  searchPendingMs: number;
  /** Search: collection and analysis (status `started`). */
  searchStartedMs: number;
  /** LinkedIn keyword searches are documented as slower; multiplier on both phases. */
  linkedinFactor: number;
  /** Expert search: `running` until `completed`. */
  expertRunningMs: number;
  /** Agent run: `pending` before the agent starts. */
  runPendingMs: number;
  /** Agent run: `running` (all four progress phases). */
  runRunningMs: number;
}

export const SPEED_PROFILES: Record<Speed, SpeedProfile> = {
  // Tests: everything completes within the request that creates it.
  instant: {
    searchPendingMs: 0,
    searchStartedMs: 0,
    linkedinFactor: 1,
    expertRunningMs: 0,
    runPendingMs: 0,
    runRunningMs: 0,
  },
  // npm start / npm run sandbox: searches in a few seconds, agent runs in about 20 s.
  demo: {
    searchPendingMs: 1_000,
    searchStartedMs: 3_000,
    linkedinFactor: 2,
    expertRunningMs: 3_000,
    runPendingMs: 2_000,
    runRunningMs: 18_000,
  },
  // Like the real service: searches take minutes, agent runs 3–5 minutes.
  realistic: {
    searchPendingMs: 15_000,
    searchStartedMs: 150_000,
    linkedinFactor: 3,
    expertRunningMs: 120_000,
    runPendingMs: 20_000,
    runRunningMs: 220_000,
  },
};

export function isSpeed(value: unknown): value is Speed {
  return typeof value === 'string' && (SPEEDS as readonly string[]).includes(value);
}

export function parseSpeed(value: string | undefined): Speed {
  if (value === undefined || value === '') return DEFAULT_SPEED;
  if (!isSpeed(value)) throw new Error(`SANDBOX_SPEED must be one of ${SPEEDS.join(', ')}; got "${value}"`);
  return value;
}
