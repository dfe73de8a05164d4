import type { Context } from 'hono';
import { defaultUpstreamUserId } from '../../../accounts/credentials.js';
import type { AppEnv, SessionUser } from '../../../http/env.js';
import { SCOPE_DESCRIPTIONS, SCOPES } from '../../../oauth/scopes.js';
import type { MemberPolicyErrors } from '../../../teams/member-policy.js';
import type { MemberWithUsage } from '../../../teams/overview.js';
import { csrfField } from '../../csrf.js';
import { Field, FormError, Notice } from '../../kit/fields.js';
import { Frame, ROLE_NAMES, TeamHeader, type TeamNav, teamPath } from '../frame.js';
import { creditCalls } from './limits.js';
import { ReadOnlyPreset, WebhookSwitch } from './policy-fields.js';

/**
 * One member's settings (labels as ARCHITECTURE.md, Rules the code keeps, lists them): their API user ID, one
 * checkbox per permission labelled by what it allows, the monthly cap with this month's count, the webhook
 * switch, and the Read-only preset.
 */
export function MemberSettingsPage(props: {
  c: Context<AppEnv>;
  user: SessionUser;
  ws: TeamNav;
  member: MemberWithUsage;
  notice?: string | null;
  errors?: MemberPolicyErrors & { form?: string };
  values?: {
    upstreamUserId: string;
    maxScopes: readonly string[];
    monthlyWriteCap: string;
    canChangeWebhook?: boolean;
  };
}) {
  const { c, user, ws, member, errors = {} } = props;
  const values = props.values ?? {
    upstreamUserId: member.upstreamUserIdSet ? member.upstreamUserId : '',
    maxScopes: member.maxScopes ?? SCOPES,
    monthlyWriteCap: member.monthlyWriteCap === null ? '' : String(member.monthlyWriteCap),
    canChangeWebhook: member.canChangeWebhook,
  };
  const self = member.userId === user.id;
  const ticked = new Set(values.maxScopes);
  return (
    <Frame c={c} user={user} title={`Settings for ${member.email}`}>
      <TeamHeader
        ws={ws}
        current="team"
        title={`Settings for ${member.email}`}
        subtitle={`In ${ws.name} · role: ${ROLE_NAMES[member.role]}`}
      />
      <Notice message={props.notice} />
      {self && ws.role !== 'owner' ? (
        <p class="notice">
          These are your own settings: you can narrow your limits here, but only an owner of the team can lift
          them.
        </p>
      ) : null}
      <FormError id="form-error" message={errors.form} />
      <form
        method="post"
        action={teamPath(ws, `/members/${encodeURIComponent(member.userId)}`)}
        class="stack wide"
        novalidate
      >
        {csrfField(c)}
        <Field
          required={false}
          id="upstream_user_id"
          name="upstream_user_id"
          label="User ID"
          value={values.upstreamUserId}
          maxLength={128}
          error={errors.upstreamUserId}
          hint={
            <>
              The name the Social Intelligence API files this member’s searches, agent runs and usage under,
              with the team’s credentials. Leave it empty for the default derived from their account,{' '}
              <code>{defaultUpstreamUserId(member.userId)}</code>.
            </>
          }
        />
        <fieldset aria-describedby={errors.maxScopes ? 'scopes-error' : 'scopes-hint'}>
          <legend>Permissions this member may grant</legend>
          {errors.maxScopes ? (
            <p id="scopes-error" class="error field-error">
              {errors.maxScopes}
            </p>
          ) : null}
          <p id="scopes-hint" class="hint muted">
            All ticked: no limit. Applies to their connected apps from their next tool call; the “Read-only”
            button below saves just the read permissions.
          </p>
          {SCOPES.map((s) => (
            <label class="check">
              <input type="checkbox" name="max_scopes" value={s} checked={ticked.has(s)} />{' '}
              {SCOPE_DESCRIPTIONS[s]}
            </label>
          ))}
        </fieldset>
        <WebhookSwitch checked={values.canChangeWebhook ?? member.canChangeWebhook} role={member.role} />
        <Field
          required={false}
          id="monthly_write_cap"
          name="monthly_write_cap"
          label="Monthly cap on credit-spending calls"
          value={values.monthlyWriteCap}
          inputMode="numeric"
          error={errors.monthlyWriteCap}
          hint={`Searches, agent runs, reruns and schedules started per calendar month (UTC). Empty: no cap. This month so far: ${creditCalls(member.writesThisMonth)}.`}
        />
        <div class="actions">
          <button type="submit">Save member settings</button>
        </div>
        <ReadOnlyPreset />
      </form>
      <p>
        <a href={teamPath(ws)}>Back to the team</a>
      </p>
    </Frame>
  );
}
