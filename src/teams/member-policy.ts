import { and, eq, ne } from 'drizzle-orm';
import { defaultUpstreamUserId, UPSTREAM_USER_ID_MAX_LENGTH } from '../accounts/credentials.js';
import type { WorkspaceRole } from '../accounts/workspaces.js';
import { recordAudit } from '../audit/record.js';
import { first, memberSubject, type Store } from '../db/store/index.js';
import { formatScopes, parseScopes, SCOPES, type Scope } from '../oauth/scopes.js';
import { recordTeamEvent } from './events.js';
import { mayManage, targetIn } from './members.js';
import { deny, inTransaction, type Outcome } from './outcome.js';
import { actorIn } from './teams.js';
import { mayChangeWebhook, roleMayChangeWebhook } from './webhook.js';

/** The largest monthly write cap an admin can type (a typo guard, not a business rule). */
export const WRITE_CAP_MAX = 1_000_000;
/** Visible ASCII and inner spaces: the upstream user id travels as a header value. */
const USER_ID_PATTERN = /^[\x21-\x7E](?:[\x20-\x7E]*[\x21-\x7E])?$/;

/** The "Read-only" preset: the read permissions, nothing that spends credits or changes the team. */
export const READ_ONLY_SCOPES: readonly Scope[] = SCOPES.filter((s) => s.endsWith(':read'));

export interface MemberPolicyInput {
  /** Empty: the default derived from the account. */
  upstreamUserId: string;
  /** The scopes ticked; all of them means no ceiling. */
  maxScopes: readonly string[];
  /** Empty: unlimited. */
  monthlyWriteCap: string;
  /** The "Can change team webhook" box; omitted: left as it is. */
  canChangeWebhook?: boolean;
  /** `read-only`: the read permissions and no webhook, whatever was ticked. */
  preset?: 'read-only';
}

export interface MemberPolicyErrors {
  upstreamUserId?: string;
  monthlyWriteCap?: string;
  maxScopes?: string;
}

export interface ParsedMemberPolicy {
  upstreamUserId: string | null;
  /** Space-separated ceiling, null for none. */
  maxScopes: string | null;
  monthlyWriteCap: number | null;
  /** undefined: unchanged. */
  canChangeWebhook?: boolean;
}

export function parseMemberPolicy(
  input: MemberPolicyInput,
): { ok: true; value: ParsedMemberPolicy } | { ok: false; errors: MemberPolicyErrors } {
  const errors: MemberPolicyErrors = {};
  const upstreamUserId = input.upstreamUserId.trim();
  if (upstreamUserId.length > UPSTREAM_USER_ID_MAX_LENGTH)
    errors.upstreamUserId = `A user ID has at most ${UPSTREAM_USER_ID_MAX_LENGTH} characters.`;
  else if (upstreamUserId && !USER_ID_PATTERN.test(upstreamUserId))
    errors.upstreamUserId = 'A user ID has only letters, digits, punctuation and spaces.';
  const asked = input.preset === 'read-only' ? READ_ONLY_SCOPES : input.maxScopes;
  const unknown = asked.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length) errors.maxScopes = 'Choose among the listed permissions.';
  const scopes = parseScopes(asked.join(' '));
  const capText = input.monthlyWriteCap.trim();
  let cap: number | null = null;
  if (capText) {
    if (!/^\d{1,9}$/.test(capText) || Number(capText) > WRITE_CAP_MAX)
      errors.monthlyWriteCap = `Enter a whole number from 0 to ${WRITE_CAP_MAX}, or leave it empty for no limit.`;
    else cap = Number(capText);
  }
  if (errors.upstreamUserId || errors.maxScopes || errors.monthlyWriteCap) return { ok: false, errors };
  const webhook = input.preset === 'read-only' ? false : input.canChangeWebhook;
  return {
    ok: true,
    value: {
      upstreamUserId: upstreamUserId || null,
      maxScopes: scopes.length === SCOPES.length ? null : formatScopes(scopes),
      monthlyWriteCap: cap,
      ...(webhook === undefined ? {} : { canChangeWebhook: webhook }),
    },
  };
}

interface Limits {
  maxScopes: string | null;
  monthlyWriteCap: number | null;
  webhook: boolean;
}

/** What `next` allows that `current` did not: the limits a person may not lift on themselves. */
export function widenedLimits(current: Limits, next: Limits): string[] {
  const widened: string[] = [];
  const allowed = new Set(current.maxScopes === null ? SCOPES : parseScopes(current.maxScopes));
  const wanted = next.maxScopes === null ? SCOPES : parseScopes(next.maxScopes);
  if (wanted.some((s) => !allowed.has(s))) widened.push('permissions');
  if (
    current.monthlyWriteCap !== null &&
    (next.monthlyWriteCap === null || next.monthlyWriteCap > current.monthlyWriteCap)
  )
    widened.push('monthly cap');
  if (next.webhook && !current.webhook) widened.push('team webhook');
  return widened;
}

type PolicyOutcome =
  | Outcome<undefined>
  | { ok: false; status: 400; message: string; errors: MemberPolicyErrors };

/**
 * Sets a member's upstream user id, scope ceiling, monthly write cap and team-webhook switch.
 * mcp/auth/authenticate.ts reads them on every /mcp call, so the change applies to the member's very next
 * tool call. Who may: owners for anyone; admins for plain members, and for themselves only to narrow
 * (an admin cannot lift their own limits, and only owners change another admin's). Upstream user ids
 * must differ between members, or their usage and their runs could not be told apart.
 */
export async function setMemberPolicy(
  db: Store,
  workspaceId: string,
  actorId: string,
  targetId: string,
  input: MemberPolicyInput,
): Promise<PolicyOutcome> {
  const parsed = parseMemberPolicy(input);
  if (!parsed.ok) {
    return { ok: false, status: 400, message: 'Check the highlighted fields.', errors: parsed.errors };
  }
  const policy = parsed.value;
  const outcome = await inTransaction(db, async (tx) => {
    const { workspaceMembers } = tx.t;
    const team = await actorIn(tx, workspaceId, actorId, 'admin');
    const target = await targetIn(tx, workspaceId, targetId);
    const self = actorId === targetId;
    if (!self && !mayManage(team.role, target.role)) {
      deny(
        403,
        target.role === 'owner'
          ? 'Only an owner can change an owner’s settings.'
          : 'Only an owner can change another admin’s settings.',
      );
    }
    const current = await currentLimits(tx, workspaceId, targetId, target.role);
    const webhookSwitch = policy.canChangeWebhook ?? current.webhookSwitch;
    const next: Limits = {
      maxScopes: policy.maxScopes,
      monthlyWriteCap: policy.monthlyWriteCap,
      webhook: mayChangeWebhook(target.role, webhookSwitch),
    };
    const widened = widenedLimits(current, next);
    if (self && team.role !== 'owner' && widened.length) {
      deny(
        403,
        `You cannot lift your own limits (${widened.join(', ')}): ask an owner of the team to change them.`,
      );
    }
    const effectiveId = policy.upstreamUserId ?? defaultUpstreamUserId(targetId);
    const others = await tx.orm
      .select({ userId: workspaceMembers.userId, upstreamUserId: workspaceMembers.upstreamUserId })
      .from(workspaceMembers)
      .where(and(eq(workspaceMembers.workspaceId, workspaceId), ne(workspaceMembers.userId, targetId)));
    if (others.some((o) => (o.upstreamUserId ?? defaultUpstreamUserId(o.userId)) === effectiveId)) {
      deny(409, 'Another member already acts as this user ID; give each member their own.', 'upstreamUserId');
    }
    // The role's default is stored as "unset", so a later role change brings its own default.
    const storedSwitch =
      webhookSwitch === null || webhookSwitch === roleMayChangeWebhook(target.role) ? null : webhookSwitch;
    await tx.orm
      .update(workspaceMembers)
      .set({
        upstreamUserId: policy.upstreamUserId,
        maxScopes: policy.maxScopes,
        monthlyWriteCap: policy.monthlyWriteCap,
        canChangeWebhook: storedSwitch,
      })
      .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, targetId)));
    await tx.invalidate(memberSubject(workspaceId, targetId));
    await recordTeamEvent(tx, {
      kind: 'member_policy_changed',
      workspaceId,
      actorId,
      detail: {
        member: targetId,
        upstreamUserId: effectiveId,
        maxScopes: policy.maxScopes,
        monthlyWriteCap: policy.monthlyWriteCap,
        canChangeWebhook: next.webhook,
        ...(input.preset ? { preset: input.preset } : {}),
      },
    });
    return undefined;
  });
  if (!outcome.ok && outcome.status === 403) {
    // A refused change of limits is worth knowing about (the transaction rolled back: written after).
    await recordAudit(db, {
      kind: 'member_policy_refused',
      workspaceId,
      userId: actorId,
      status: 'refused',
      detail: { member: targetId, reason: outcome.message },
    });
  }
  return outcome;
}

async function currentLimits(tx: Store, workspaceId: string, userId: string, role: WorkspaceRole) {
  const { workspaceMembers } = tx.t;
  const row = await first(
    tx.orm
      .select({
        maxScopes: workspaceMembers.maxScopes,
        monthlyWriteCap: workspaceMembers.monthlyWriteCap,
        canChangeWebhook: workspaceMembers.canChangeWebhook,
      })
      .from(workspaceMembers)
      .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId))),
  );
  return {
    maxScopes: row?.maxScopes ?? null,
    monthlyWriteCap: row?.monthlyWriteCap ?? null,
    webhookSwitch: row?.canChangeWebhook ?? null,
    webhook: mayChangeWebhook(role, row?.canChangeWebhook ?? null),
  };
}
