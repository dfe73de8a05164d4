import { credentialDigest } from '../../upstream/credential-digest.js';
import { isRecord } from '../results/format.js';
import type { ToolContext } from './types.js';

/**
 * Followers of the twitter accounts of a finished keyword search, for its top voices: a search's compact
 * posts carry no follower counts, its twitter posts_data records do (`followers_count`). A finished
 * search's posts no longer change, so what was read is kept, per credential and search, for the
 * summaries read again (a bounded map, the oldest entry dropped first): one more upstream read the
 * first time a search is summarized, none after.
 */
const KEPT = 512;
const kept = new Map<string, ReadonlyMap<string, number>>();

function keyOf(ctx: ToolContext, searchId: number): string {
  // The credential is hashed: the map outlives the call, and need not hold the token.
  return `${credentialDigest(ctx.creds)}\u0000${searchId}`;
}

/** `twitter\u0000<handle>` → followers, for the twitter posts of a finished search; null when unreadable. */
export async function twitterFollowers(
  ctx: ToolContext,
  searchId: number,
  deadline?: number,
): Promise<ReadonlyMap<string, number> | null> {
  const key = keyOf(ctx, searchId);
  const hit = kept.get(key);
  if (hit) {
    kept.delete(key);
    kept.set(key, hit);
    return hit;
  }
  try {
    const body = await ctx.upstream.getKeywordSearchPosts(ctx.creds, searchId, 'twitter', {
      signal: ctx.signal,
      deadline,
    });
    const followers = new Map<string, number>();
    for (const p of body.posts) {
      if (!isRecord(p) || typeof p.username !== 'string') continue;
      const n = Number(p.followers_count);
      if (!Number.isFinite(n)) continue;
      const k = `twitter\u0000${p.username}`;
      followers.set(k, Math.max(followers.get(k) ?? 0, n));
    }
    // Kept only when there is something to keep: posts_data may lag behind the analysis.
    if (followers.size > 0) kept.set(key, followers);
    if (kept.size > KEPT) kept.delete(kept.keys().next().value as string);
    return followers;
  } catch {
    return null;
  }
}
