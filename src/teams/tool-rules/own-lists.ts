import type { Store } from '../../db/store/index.js';
import type { UpstreamClient } from '../../upstream/client.js';
import { type ItemKind, recordedOwners, statedOwner } from '../ownership.js';
import { overriding, PASS, type PolicyCall, refusal, type TeamTouch, type ToolRule } from './rule.js';

type List = Extract<TeamTouch, { list: unknown }>;

/** Upstream list method and the array it answers with, per kind (runs filter upstream by user). */
const LISTS = {
  schedule: { method: 'listSchedules', key: 'schedules' },
  keyword_search: { method: 'listKeywordSearches', key: 'keyword_searches' },
  user_search: { method: 'listUserSearches', key: 'user_searches' },
  expert_search: { method: 'listExpertSearches', key: 'searches' },
} as const;

type ListCall = (...a: Parameters<UpstreamClient['listSchedules']>) => Promise<Record<string, unknown>>;

/** Keeps only the caller's own items of a list record (and drops its team-wide total). */
async function ownItems(
  db: Store,
  call: PolicyCall,
  kind: Exclude<ItemKind, 'run'>,
  record: Record<string, unknown>,
) {
  const key = LISTS[kind].key;
  const items = Array.isArray(record[key]) ? (record[key] as Array<Record<string, unknown>>) : [];
  const recorded = await recordedOwners(
    db,
    call.caller.workspaceId,
    kind,
    items.map((i) => String(i.id)),
  );
  const ownerOfItem = (i: Record<string, unknown>) =>
    (kind === 'schedule' ? statedOwner(i) : null) ?? recorded.get(String(i.id)) ?? null;
  const kept = items.filter((i) => ownerOfItem(i) === call.creds.userId);
  const { total: _teamWide, ...rest } = record;
  return { ...rest, [key]: kept };
}

/**
 * A member who may not read teammates' work lists only their own items: runs through upstream's own
 * user filter (asking for another user's is refused), everything else filtered by who created it.
 */
export const ownListsRule: ToolRule<List> = {
  handles: (touch): touch is List => 'list' in touch,
  async check(touch, { db, call, readsAll }) {
    if (readsAll) return PASS;
    const kind = touch.list;
    if (kind === 'run') {
      const userArg = touch.userArg ?? 'user_id';
      const asked = call.args[userArg];
      if (asked !== undefined && asked !== call.creds.userId) {
        return refusal(
          'teammates_work',
          `This team lets members list only their own agent runs. Call ${call.tool.name} again without ${userArg}.`,
        );
      }
      return { refused: null, args: { ...call.args, [userArg]: call.creds.userId } };
    }
    const { method } = LISTS[kind];
    const list = call.upstream[method] as ListCall;
    const narrowed: ListCall = async (...a) => ownItems(db, call, kind, await list(...a));
    return { refused: null, upstream: overriding(call.upstream, method, narrowed as never) };
  },
};
