import { mayChangeWebhook, recordWebhookChange } from '../webhook.js';
import { ASK, refusal, type TeamTouch, type ToolRule } from './rule.js';

/**
 * The upstream account's webhook receives every completed search of the whole team: only owners and
 * admins change it, or a member an owner or admin allowed. A change that succeeded is recorded.
 */
export const teamWebhookRule: ToolRule<Extract<TeamTouch, { teamWebhook: true }>> = {
  handles: (touch): touch is { teamWebhook: true } => 'teamWebhook' in touch,
  async check(_touch, { db, call }) {
    const { caller } = call;
    if (!mayChangeWebhook(caller.team.role, caller.team.canChangeWebhook)) {
      return refusal(
        'team_webhook',
        `The webhook receives every completed search of the whole team, so only the team's owners and admins may change it unless one of them allows you ("Can change team webhook" in your member settings). Nothing was changed; ${ASK}.`,
      );
    }
    const before = (await call.upstream.getSetup(call.creds, { signal: call.signal })).return_url ?? null;
    return {
      refused: null,
      afterOk: (args) =>
        recordWebhookChange(db, {
          workspaceId: caller.workspaceId,
          actorId: caller.userId,
          from: before,
          to: args.return_url,
        }),
    };
  },
};
