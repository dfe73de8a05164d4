import { and, eq, inArray } from 'drizzle-orm';
import type { Store } from '../db/store/index.js';

/**
 * Whose is an item of the team's shared upstream account. "Own" means created under the member's
 * upstream user id (the X-SERVICE-USER-ID their calls carry):
 * - an agent run says so itself: `service_user_id` (docs/upstream.md, Agent runs and schedules);
 * - a schedule is documented with no owner field: we take `service_user_id` when upstream sends one
 *   (the sandbox does), else our own record of who created it through this server, else the owner of
 *   a run it produced (its runs are made under its creator's id);
 * - searches carry no owner upstream at all: only our own record counts.
 * An item none of these can place is nobody's own: members may neither change it nor, when the team
 * keeps work private, read it; owners and admins still may.
 */

export const ITEM_KINDS = ['run', 'schedule', 'keyword_search', 'user_search', 'expert_search'] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];
/** Kinds whose creator only we can record (nothing upstream says who made them, or not reliably). */
export type RecordedKind = Exclude<ItemKind, 'run'>;

/** How each kind is named to a person or a model. */
export const ITEM_NAMES: Record<ItemKind, string> = {
  run: 'agent run',
  schedule: 'schedule',
  keyword_search: 'keyword search',
  user_search: 'user search',
  expert_search: 'expert search',
};

export interface Creator {
  userId: string;
  upstreamUserId: string;
}

/** Remembers who created an item through us; a second record of the same item keeps the first. */
export async function recordCreator(
  db: Store,
  item: { workspaceId: string; kind: RecordedKind; itemId: string | number },
  creator: Creator,
  now = Date.now(),
): Promise<void> {
  await db.orm
    .insert(db.t.itemCreators)
    .values({
      workspaceId: item.workspaceId,
      kind: item.kind,
      itemId: String(item.itemId),
      userId: creator.userId,
      upstreamUserId: creator.upstreamUserId,
      createdAt: now,
    })
    .onConflictDoNothing();
}

/** The upstream user id each of these items was created under through us (absent: not through us). */
export async function recordedOwners(
  db: Store,
  workspaceId: string,
  kind: RecordedKind,
  itemIds: readonly (string | number)[],
): Promise<Map<string, string>> {
  if (itemIds.length === 0) return new Map();
  const { itemCreators } = db.t;
  const rows = await db.orm
    .select({ itemId: itemCreators.itemId, owner: itemCreators.upstreamUserId })
    .from(itemCreators)
    .where(
      and(
        eq(itemCreators.workspaceId, workspaceId),
        eq(itemCreators.kind, kind),
        inArray(itemCreators.itemId, [...new Set(itemIds.map(String))]),
      ),
    );
  return new Map(rows.map((r) => [r.itemId, r.owner]));
}

/** The owner an upstream record states (`service_user_id`), or null when it states none. */
export function statedOwner(record: Record<string, unknown>): string | null {
  const owner = record.service_user_id;
  return typeof owner === 'string' && owner !== '' ? owner : null;
}

/** The agent runs a schedule record lists as produced by it, newest first (`recent_runs`). */
export function producedRunIds(schedule: Record<string, unknown>): string[] {
  const recent = schedule.recent_runs;
  if (!Array.isArray(recent)) return [];
  return recent
    .map((r) => (r && typeof r === 'object' ? (r as Record<string, unknown>).agent_run_id : null))
    .filter((id): id is string => typeof id === 'string' && id !== '');
}

/**
 * A schedule's owner from what is known without another upstream call: the field upstream states,
 * else our record; undefined means "ask a run it produced" (see producedRunIds), null nobody's.
 */
export function scheduleOwner(
  schedule: Record<string, unknown>,
  recorded: string | undefined,
): string | null | undefined {
  const stated = statedOwner(schedule);
  if (stated !== null) return stated;
  if (recorded !== undefined) return recorded;
  return producedRunIds(schedule).length > 0 ? undefined : null;
}
