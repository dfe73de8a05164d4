import { ITEM_NAMES } from '../ownership.js';
import { ownerOf } from './owners.js';
import { ASK, PASS, refusal, type TeamTouch, type ToolRule } from './rule.js';

type Read = Extract<TeamTouch, { read: unknown }>;

/**
 * A member reads a teammate's item only when the team allows it ("Members can read teammates' work");
 * an absent optional id argument reads nothing.
 */
export const teammatesReadsRule: ToolRule<Read> = {
  handles: (touch): touch is Read => 'read' in touch,
  async check(touch, { db, call, readsAll }) {
    if (readsAll || call.args[touch.idArg] === undefined) return PASS;
    const id = String(call.args[touch.idArg]);
    if ((await ownerOf(db, call, touch.read, id)) === call.creds.userId) return PASS;
    return refusal(
      'teammates_work',
      `This team lets members read only their own agent runs, schedules and searches, and this ${ITEM_NAMES[touch.read]} is not yours. Use the list tools to see yours, or ${ASK} if you need it.`,
      { item: touch.read, id },
    );
  },
};
