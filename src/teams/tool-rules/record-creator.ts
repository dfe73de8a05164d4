import type { CallOptions, UpstreamCredentials } from '../../upstream/client.js';
import { recordCreator } from '../ownership.js';
import { overriding, type TeamTouch, type ToolRule } from './rule.js';

type Create = Extract<TeamTouch, { create: unknown }>;

const CREATES = {
  schedule: 'createSchedule',
  keyword_search: 'createKeywordSearch',
  user_search: 'createUserSearch',
  expert_search: 'createExpertSearch',
} as const;

type CreateCall = (
  creds: UpstreamCredentials,
  body: Record<string, unknown>,
  o?: CallOptions,
) => Promise<{ id: string | number }>;

/**
 * Upstream does not say who created a search or schedule under the team's shared credential: the
 * creation is recorded as it happens, so ownership can be told later.
 */
export const recordCreatorRule: ToolRule<Create> = {
  handles: (touch): touch is Create => 'create' in touch,
  async check(touch, { db, call }) {
    const kind = touch.create;
    const method = CREATES[kind];
    const create = call.upstream[method] as CreateCall;
    const recording: CreateCall = async (...a) => {
      const created = await create(...a);
      await recordCreator(
        db,
        { workspaceId: call.caller.workspaceId, kind, itemId: created.id },
        { userId: call.caller.userId, upstreamUserId: call.creds.userId },
      );
      return created;
    };
    return { refused: null, upstream: overriding(call.upstream, method, recording as never) };
  },
};
