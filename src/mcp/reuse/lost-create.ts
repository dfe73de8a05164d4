import { setTimeout as sleep } from 'node:timers/promises';
import { and, eq, inArray } from 'drizzle-orm';
import type { Store } from '../../db/store/index.js';
import { UpstreamError } from '../../upstream/errors.js';
import type { ListedJob, LongWork, StartedJob, ToolContext } from '../tools/types.js';

/**
 * A create whose answer was lost, for ./recent-submits.ts: telling one from a create that made nothing,
 * and finding the work it may have made in the caller's list upstream, so a submit is not paid twice.
 */

/** How much earlier than the create an upstream list may date the work it made (the hosts' clocks differ). */
const CLOCK_SKEW_MS = 5_000;
/** A lost create not in the list yet is looked for once more after this (the upstream may still be writing it). */
const SECOND_LOOK_MS = 1_000;

/**
 * A create that failed without saying whether the work was made: the connection dropped or timed out
 * after the request was sent, a 5xx (a gateway's 502 or 504 comes after the request went on), or a 2xx
 * this server could not read. A refusal (4xx), a connection never made, or an open circuit made nothing.
 */
export function outcomeUnknown(error: unknown): boolean {
  if (!(error instanceof UpstreamError)) return false;
  if (error.kind === 'network')
    return !['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT'].includes(
      error.detail ?? '',
    );
  return error.kind === 'timeout' || error.kind === 'server' || error.kind === 'malformed';
}

/**
 * The work a create made at `since` as the caller's list upstream shows it: the earliest listed
 * with the same query or question from then on that no other submit has recorded; 'none' when
 * `looks` reads (SECOND_LOOK_MS apart) all found nothing. Throws when the list cannot be read.
 */
export async function lookForLostCreate<A>(
  db: Store,
  work: LongWork<A>,
  args: A,
  ctx: ToolContext,
  since: number,
  looks: number,
): Promise<StartedJob | 'none'> {
  const { recentSubmits: r } = db.t;
  for (let look = 1; ; look++) {
    const listed = (await work.find(args, ctx)).filter((j) => j.createdAt >= since - CLOCK_SKEW_MS);
    if (listed.length > 0) {
      const ids = listed.map((j) => String(j.id));
      const recorded = await db.orm
        .select({ jobId: r.jobId })
        .from(r)
        .where(and(eq(r.kind, work.kind), inArray(r.jobId, ids)));
      const taken = new Set(recorded.map((row) => row.jobId));
      const mineListed = listed
        .filter((j) => !taken.has(String(j.id)))
        .sort((a: ListedJob, b: ListedJob) => a.createdAt - b.createdAt)[0];
      if (mineListed) return { id: mineListed.id, fresh: true };
    }
    if (look >= looks) return 'none';
    await sleep(SECOND_LOOK_MS);
  }
}
