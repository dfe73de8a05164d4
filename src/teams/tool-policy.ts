import type { WorkspaceRole } from '../accounts/workspaces.js';
import type { Store } from '../db/store/index.js';
import type { CallOptions, UpstreamClient, UpstreamCredentials } from '../upstream/client.js';
import {
  ITEM_NAMES,
  type ItemKind,
  producedRunIds,
  type RecordedKind,
  recordCreator,
  recordedOwners,
  scheduleOwner,
  statedOwner,
} from './ownership.js';
import { mayChangeWebhook, recordWebhookChange } from './webhook.js';
import { reserveWriteCall } from './write-cap.js';

/**
 * What a tool does to the team's shared upstream account, declared on its ToolDef (`team`), so the
 * team policy applies without touching tool bodies:
 * - `change`: changes one run or schedule named by `idArg` (members: only their own);
 * - `read`: reads one item named by `idArg` (members: teammates' only when the team allows it; an
 *   absent optional argument reads nothing);
 * - `list`: lists items (members who may not read teammates' work see their own; for runs through
 *   upstream's own `userArg` filter);
 * - `create`: creates an item whose creator only we can record;
 * - `teamWebhook`: changes the upstream account's webhook.
 */
export type TeamTouch =
  | { change: 'run' | 'schedule'; idArg: string }
  | { read: ItemKind; idArg: string }
  | { list: ItemKind; userArg?: string }
  | { create: RecordedKind }
  | { teamWebhook: true };

export interface PolicyCaller {
  userId: string;
  workspaceId: string;
  team: { role: WorkspaceRole; canChangeWebhook: boolean | null; membersReadTeamWork: boolean };
}

export interface PolicyCall {
  caller: PolicyCaller;
  tool: { name: string; team?: TeamTouch | undefined };
  args: Record<string, unknown>;
  upstream: UpstreamClient;
  creds: UpstreamCredentials;
  signal: AbortSignal;
}

export interface PolicyRefusal {
  /** At most three sentences a model can act on. */
  message: string;
  /** For the audit row. */
  reason: 'not_owner' | 'owner_unknown' | 'teammates_work' | 'team_webhook' | 'write_cap';
  detail?: Record<string, string>;
}

/** How to run a call the policy lets through, and what to do once its audit row is written. */
export interface PolicyPass {
  refused: null;
  args: Record<string, unknown>;
  upstream: UpstreamClient;
  /** Settles what the call reserved (its write-cap reservation) and records what it changed. */
  finish(auditStatus: string): Promise<void>;
}

export type PolicyGate = { refused: PolicyRefusal } | PolicyPass;

const ASK = 'ask a team owner or admin';

function refusal(reason: PolicyRefusal['reason'], message: string, detail?: Record<string, string>) {
  return { refused: { reason, message, ...(detail ? { detail } : {}) } };
}

/** The shared upstream client with one method replaced, for this call only. */
function overriding<K extends keyof UpstreamClient>(
  upstream: UpstreamClient,
  method: K,
  replacement: UpstreamClient[K],
): UpstreamClient {
  return { ...upstream, [method]: replacement };
}

/** Upstream list method and the array it answers with, per kind. */
const LISTS = {
  run: null,
  schedule: { method: 'listSchedules', key: 'schedules' },
  keyword_search: { method: 'listKeywordSearches', key: 'keyword_searches' },
  user_search: { method: 'listUserSearches', key: 'user_searches' },
  expert_search: { method: 'listExpertSearches', key: 'searches' },
} as const;

type CreateCall = (
  creds: UpstreamCredentials,
  body: Record<string, unknown>,
  o?: CallOptions,
) => Promise<{ id: string | number }>;
type ListCall = (
  creds: UpstreamCredentials,
  query: Parameters<UpstreamClient['listSchedules']>[1],
  o?: CallOptions,
) => Promise<Record<string, unknown>>;

const CREATES = {
  schedule: 'createSchedule',
  keyword_search: 'createKeywordSearch',
  user_search: 'createUserSearch',
  expert_search: 'createExpertSearch',
} as const;

/**
 * The team policy of the tool call path (src/mcp/catalog/catalog.ts calls it after argument validation and
 * before the tool's run): the team webhook permission, members acting only on their own runs and
 * schedules, the team's setting on reading teammates' work, who created what, and the monthly write
 * cap (reserved last, so a refused call reserves nothing).
 */
export function teamToolPolicy(db: Store): (call: PolicyCall) => Promise<PolicyGate> {
  /** The upstream user id a schedule was created under, or null when nothing says. */
  async function ownerOfSchedule(call: PolicyCall, id: string): Promise<string | null> {
    const { upstream, creds, signal, caller } = call;
    const schedule = await upstream.getSchedule(creds, id, { signal });
    const recorded = (await recordedOwners(db, caller.workspaceId, 'schedule', [schedule.id])).get(
      schedule.id,
    );
    const known = scheduleOwner(schedule, recorded);
    if (known !== undefined) return known;
    const [newest] = producedRunIds(schedule);
    return newest === undefined ? null : statedOwner(await upstream.getRun(creds, newest, { signal }));
  }

  async function ownerOf(call: PolicyCall, kind: ItemKind, id: string): Promise<string | null> {
    if (kind === 'run')
      return statedOwner(await call.upstream.getRun(call.creds, id, { signal: call.signal }));
    if (kind === 'schedule') return ownerOfSchedule(call, id);
    return (await recordedOwners(db, call.caller.workspaceId, kind, [id])).get(id) ?? null;
  }

  /** Keeps only the caller's own items of a list record (and drops its team-wide total). */
  async function ownItems(call: PolicyCall, kind: Exclude<ItemKind, 'run'>, record: Record<string, unknown>) {
    const key = LISTS[kind].key;
    const items = Array.isArray(record[key]) ? (record[key] as Array<Record<string, unknown>>) : [];
    const recorded = await recordedOwners(
      db,
      call.caller.workspaceId,
      kind,
      items.map((i) => String(i.id)),
    );
    const own = call.creds.userId;
    const ownerOfItem = (i: Record<string, unknown>) =>
      (kind === 'schedule' ? statedOwner(i) : null) ?? recorded.get(String(i.id)) ?? null;
    const kept = items.filter((i) => ownerOfItem(i) === own);
    const { total: _teamWide, ...rest } = record;
    return { ...rest, [key]: kept };
  }

  return async (call) => {
    const { caller, tool, creds } = call;
    const touch = tool.team;
    const privileged = caller.team.role === 'owner' || caller.team.role === 'admin';
    const readsAll = privileged || caller.team.membersReadTeamWork;
    let args = call.args;
    let upstream = call.upstream;
    let webhookBefore: unknown;

    if (touch && 'teamWebhook' in touch) {
      if (!mayChangeWebhook(caller.team.role, caller.team.canChangeWebhook)) {
        return refusal(
          'team_webhook',
          `The webhook receives every completed search of the whole team, so only the team's owners and admins may change it unless one of them allows you ("Can change team webhook" in your member settings). Nothing was changed; ${ASK}.`,
        );
      }
      webhookBefore = (await upstream.getSetup(creds, { signal: call.signal })).return_url ?? null;
    } else if (touch && 'change' in touch && !privileged) {
      const id = String(args[touch.idArg]);
      const owner = await ownerOf(call, touch.change, id);
      const what = ITEM_NAMES[touch.change];
      if (owner !== creds.userId) {
        return owner === null
          ? refusal(
              'owner_unknown',
              `Nobody can tell who created this ${what}, and team members may change only their own agent runs and schedules. Nothing was changed; ${ASK} to do it.`,
              { item: touch.change, id },
            )
          : refusal(
              'not_owner',
              `This ${what} belongs to another team member, and members may change only their own agent runs and schedules. Nothing was changed; ${ASK} to do it.`,
              { item: touch.change, id },
            );
      }
    } else if (touch && 'read' in touch && !readsAll && args[touch.idArg] !== undefined) {
      const id = String(args[touch.idArg]);
      if ((await ownerOf(call, touch.read, id)) !== creds.userId) {
        return refusal(
          'teammates_work',
          `This team lets members read only their own agent runs, schedules and searches, and this ${ITEM_NAMES[touch.read]} is not yours. Use the list tools to see yours, or ${ASK} if you need it.`,
          { item: touch.read, id },
        );
      }
    } else if (touch && 'list' in touch && !readsAll) {
      const kind = touch.list;
      if (kind === 'run') {
        const userArg = touch.userArg ?? 'user_id';
        const asked = args[userArg];
        if (asked !== undefined && asked !== creds.userId) {
          return refusal(
            'teammates_work',
            `This team lets members list only their own agent runs. Call ${tool.name} again without ${userArg}.`,
          );
        }
        args = { ...args, [userArg]: creds.userId };
      } else {
        const { method } = LISTS[kind];
        const list = upstream[method] as ListCall;
        const narrowed: ListCall = async (...a) => ownItems(call, kind, await list(...a));
        upstream = overriding(upstream, method, narrowed as never);
      }
    } else if (touch && 'create' in touch) {
      const kind = touch.create;
      const method = CREATES[kind];
      const create = upstream[method] as CreateCall;
      const recording: CreateCall = async (...a) => {
        const created = await create(...a);
        await recordCreator(
          db,
          { workspaceId: caller.workspaceId, kind, itemId: created.id },
          { userId: caller.userId, upstreamUserId: creds.userId },
        );
        return created;
      };
      upstream = overriding(upstream, method, recording as never);
    }

    const reservation = await reserveWriteCall(db, caller, tool.name);
    if (reservation.refusal !== null) return refusal('write_cap', reservation.refusal);
    return {
      refused: null,
      args,
      upstream,
      async finish(auditStatus) {
        await reservation.release();
        if (touch && 'teamWebhook' in touch && auditStatus === 'ok') {
          await recordWebhookChange(db, {
            workspaceId: caller.workspaceId,
            actorId: caller.userId,
            from: webhookBefore,
            to: args.return_url,
          });
        }
      },
    };
  };
}
