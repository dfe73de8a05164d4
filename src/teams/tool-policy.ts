import type { Store } from '../db/store/index.js';
import type { UpstreamClient } from '../upstream/client.js';
import { ownChangesRule } from './tool-rules/own-changes.js';
import { ownListsRule } from './tool-rules/own-lists.js';
import { recordCreatorRule } from './tool-rules/record-creator.js';
import {
  PASS,
  type PolicyCall,
  type PolicyRefusal,
  type RuleContext,
  type RuleOutcome,
  refusal,
  type TeamTouch,
  type ToolRule,
} from './tool-rules/rule.js';
import { teamWebhookRule } from './tool-rules/team-webhook.js';
import { teammatesReadsRule } from './tool-rules/teammates-reads.js';
import { type CreditSpendingTools, reserveWriteCall } from './write-cap.js';

export type {
  PolicyCall,
  PolicyCaller,
  PolicyRefusal,
  TeamTouch,
} from './tool-rules/rule.js';

/** How to run a call the policy lets through, and what to do once its audit row is written. */
export interface PolicyPass {
  refused: null;
  args: Record<string, unknown>;
  upstream: UpstreamClient;
  /** Settles what the call reserved (its write-cap reservation) and records what it changed. */
  finish(auditStatus: string): Promise<void>;
}

export type PolicyGate = { refused: PolicyRefusal } | PolicyPass;

/** One rule per kind of team touch (a tool declares at most one); each in its own file. */
const RULES: readonly ToolRule<TeamTouch>[] = [
  teamWebhookRule,
  ownChangesRule,
  teammatesReadsRule,
  ownListsRule,
  recordCreatorRule,
] as ToolRule<TeamTouch>[];

function ruleOutcome(touch: TeamTouch | undefined, context: RuleContext): Promise<RuleOutcome> {
  if (!touch) return Promise.resolve(PASS);
  const rule = RULES.find((r) => r.handles(touch));
  return rule ? rule.check(touch, context) : Promise.resolve(PASS);
}

/**
 * The team policy of the tool call path (src/mcp/catalog/execute.ts:admit calls it after argument validation
 * and before the tool's run): the rule for what the tool touches (./tool-rules/), then the monthly
 * write cap on the tools that spend credits (`spendingTools`, from the tools' own definitions), reserved
 * last so a refused call reserves nothing.
 */
export function teamToolPolicy(
  db: Store,
  spendingTools: CreditSpendingTools,
): (call: PolicyCall) => Promise<PolicyGate> {
  return async (call) => {
    const { role, membersReadTeamWork } = call.caller.team;
    const privileged = role === 'owner' || role === 'admin';
    const outcome = await ruleOutcome(call.tool.team, {
      db,
      call,
      privileged,
      readsAll: privileged || membersReadTeamWork,
    });
    if (outcome.refused) return outcome;
    const args = outcome.args ?? call.args;
    const reservation = await reserveWriteCall(db, call.caller, call.tool, spendingTools);
    if (reservation.refusal !== null) return refusal('write_cap', reservation.refusal);
    return {
      refused: null,
      args,
      upstream: outcome.upstream ?? call.upstream,
      async finish(auditStatus) {
        await reservation.release();
        if (auditStatus === 'ok') await outcome.afterOk?.(args);
      },
    };
  };
}
