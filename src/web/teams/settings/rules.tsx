import type { Context } from 'hono';
import type { AppEnv } from '../../../http/env.js';
import { TOKEN_MAX_DAYS_LIMIT } from '../../../teams/access-token-settings.js';
import type { TeamSettings } from '../../../teams/team-settings.js';
import { csrfField } from '../../csrf.js';
import { Field } from '../../kit/fields.js';
import { type TeamNav, teamPath } from '../frame.js';

/**
 * The team's rules in plain words, on the team page for everyone, and the team setting on reading
 * teammates' work (changeable by owners and admins). The words match what src/teams/tool-rules/ and
 * src/teams/member-policy.ts enforce.
 */
export function TeamRules(props: {
  c: Context<AppEnv>;
  ws: TeamNav;
  settings: TeamSettings;
  /** A refused access token settings form. */
  tokenError?: string | undefined;
}) {
  const { c, ws, settings } = props;
  const admin = ws.role !== 'member';
  return (
    <section aria-labelledby="rules-heading">
      <h2 id="rules-heading">How this team shares its account</h2>
      <ul>
        <li>Everyone’s AI clients use the team’s API credentials, each member as their own user ID.</li>
        <li>
          Members cancel, rerun, rename, pin and delete only their own agent runs, and change, pause, resume
          and delete only their own schedules. Owners and admins can act on everyone’s.
        </li>
        <li>
          {settings.membersReadTeamWork
            ? 'Members can read teammates’ agent runs, schedules and searches.'
            : 'Members read and list only their own agent runs, schedules and searches. Owners and admins read everything.'}
        </li>
        <li>
          Only owners and admins can change the team webhook, which receives every completed search of the
          whole team; a member can when an owner or admin ticks “Can change team webhook” in their settings.
        </li>
        <li>
          Admins change plain members’ settings; only an owner changes an admin’s. Admins can narrow their own
          limits but not lift them.
        </li>
        <li>
          {settings.accessTokensAllowed
            ? `Members can create access tokens for scripts and CI jobs, each for at most ${settings.accessTokenMaxDays} days; owners and admins see and revoke them on the connected apps page.`
            : 'Access tokens are turned off: no member can create one, and none is accepted.'}
        </li>
      </ul>
      {admin ? (
        <form method="post" action={teamPath(ws, '/settings')} class="stack">
          {csrfField(c)}
          <label class="check">
            <input
              type="checkbox"
              name="members_read_team_work"
              checked={settings.membersReadTeamWork}
              aria-describedby="read-team-work-hint"
            />{' '}
            Members can read teammates’ runs and searches
          </label>
          <p id="read-team-work-hint" class="hint muted">
            Unticked, each member sees only the agent runs, schedules and searches they made themselves.
            Searches made outside this server, or before it recorded who made them, are then visible to owners
            and admins only.
          </p>
          <div class="actions">
            <button type="submit" class="secondary">
              Save team settings
            </button>
          </div>
        </form>
      ) : null}
      {admin ? <AccessTokenSettingsForm c={c} ws={ws} settings={settings} error={props.tokenError} /> : null}
    </section>
  );
}

/** Whether members may create access tokens, and their longest lifetime (owners and admins). */
function AccessTokenSettingsForm(props: {
  c: Context<AppEnv>;
  ws: TeamNav;
  settings: TeamSettings;
  error?: string | undefined;
}) {
  const { settings } = props;
  return (
    <form method="post" action={teamPath(props.ws, '/access-tokens')} class="stack" novalidate>
      {csrfField(props.c)}
      <label class="check">
        <input
          type="checkbox"
          name="access_tokens_allowed"
          checked={settings.accessTokensAllowed}
          aria-describedby="tokens-allowed-hint"
        />{' '}
        Members can create access tokens
      </label>
      <p id="tokens-allowed-hint" class="hint muted">
        Unticked, every access token of this team is revoked at once and no new one can be made.
      </p>
      <Field
        id="token-max-days"
        name="max_days"
        label="Longest access token lifetime (days)"
        type="number"
        inputMode="numeric"
        min={1}
        max={TOKEN_MAX_DAYS_LIMIT}
        value={String(settings.accessTokenMaxDays)}
        error={props.error}
        hint="Lowering it shortens tokens already made, too."
      />
      <div class="actions">
        <button type="submit" class="secondary">
          Save access token settings
        </button>
      </div>
    </form>
  );
}
