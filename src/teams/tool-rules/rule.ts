import type { WorkspaceRole } from '../../accounts/workspaces.js';
import type { Store } from '../../db/store/index.js';
import type { UpstreamClient, UpstreamCredentials } from '../../upstream/client.js';
import type { ItemKind, RecordedKind } from '../ownership.js';

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
  tool: { name: string; team?: TeamTouch | undefined; spendsCredits: boolean };
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

/** What one rule makes of a call: a refusal, or how the call runs and what to do once it succeeded. */
export type RuleOutcome =
  | { refused: PolicyRefusal }
  | {
      refused: null;
      args?: Record<string, unknown>;
      upstream?: UpstreamClient;
      /** Once the call's audit row says `ok`, with the arguments it ran with. */
      afterOk?: (args: Record<string, unknown>) => Promise<void>;
    };

export interface RuleContext {
  db: Store;
  call: PolicyCall;
  /** Owners and admins: the rules for members do not apply to them. */
  privileged: boolean;
  /** The caller may read teammates' work (privileged, or the team allows it). */
  readsAll: boolean;
}

/** One rule of the team policy, for the tools whose `team` touch it handles. */
export interface ToolRule<T extends TeamTouch> {
  handles(touch: TeamTouch): touch is T;
  check(touch: T, context: RuleContext): Promise<RuleOutcome>;
}

export const ASK = 'ask a team owner or admin';

export const PASS: RuleOutcome = { refused: null };

export function refusal(
  reason: PolicyRefusal['reason'],
  message: string,
  detail?: Record<string, string>,
): { refused: PolicyRefusal } {
  return { refused: { reason, message, ...(detail ? { detail } : {}) } };
}

/** The shared upstream client with one method replaced, for this call only. */
export function overriding<K extends keyof UpstreamClient>(
  upstream: UpstreamClient,
  method: K,
  replacement: UpstreamClient[K],
): UpstreamClient {
  return { ...upstream, [method]: replacement };
}
