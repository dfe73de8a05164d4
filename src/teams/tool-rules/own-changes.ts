import { ITEM_NAMES } from '../ownership.js';
import { ownerOf } from './owners.js';
import { ASK, PASS, refusal, type TeamTouch, type ToolRule } from './rule.js';

type Change = Extract<TeamTouch, { change: unknown }>;

/** Members change only their own agent runs and schedules; owners and admins change any. */
export const ownChangesRule: ToolRule<Change> = {
  handles: (touch): touch is Change => 'change' in touch,
  async check(touch, { db, call, privileged }) {
    if (privileged) return PASS;
    const id = String(call.args[touch.idArg]);
    const owner = await ownerOf(db, call, touch.change, id);
    if (owner === call.creds.userId) return PASS;
    const what = ITEM_NAMES[touch.change];
    const detail = { item: touch.change, id };
    return owner === null
      ? refusal(
          'owner_unknown',
          `Nobody can tell who created this ${what}, and team members may change only their own agent runs and schedules. Nothing was changed; ${ASK} to do it.`,
          detail,
        )
      : refusal(
          'not_owner',
          `This ${what} belongs to another team member, and members may change only their own agent runs and schedules. Nothing was changed; ${ASK} to do it.`,
          detail,
        );
  },
};
