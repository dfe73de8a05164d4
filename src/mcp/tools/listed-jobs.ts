import type { ListedJob } from './types.js';

/**
 * The items of an upstream list (a page of searches or runs, newest first) that a create whose answer
 * was lost could have made: the same query or question (`matches`), not failed, with an id and a
 * creation time. Which of them is the lost one is decided by time in ../reuse/recent-submits.ts.
 */
export function listedJobs(items: unknown, matches: (item: Record<string, unknown>) => boolean): ListedJob[] {
  if (!Array.isArray(items)) return [];
  const jobs: ListedJob[] = [];
  for (const item of items) {
    if (!item || typeof item !== 'object') continue;
    const o = item as Record<string, unknown>;
    const createdAt = typeof o.created_at === 'string' ? Date.parse(o.created_at) : Number.NaN;
    const id = o.id;
    if (Number.isNaN(createdAt) || (typeof id !== 'string' && typeof id !== 'number')) continue;
    if (o.status === 'failed' || !matches(o)) continue;
    jobs.push({ id, createdAt });
  }
  return jobs;
}
