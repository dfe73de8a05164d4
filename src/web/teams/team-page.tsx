import type { Context } from 'hono';
import type { AppEnv, SessionUser } from '../../http/env.js';
import type { InviteErrors } from '../../teams/invites.js';
import type { TeamOverview } from '../../teams/overview.js';
import { FormError, Notice } from '../kit/fields.js';
import { Frame, TeamHeader, type TeamNav } from './frame.js';
import { InviteSection, type NewInvite, NewInviteCard } from './invites/section.js';
import { MembersSection } from './members/table.js';
import { ManageTeam } from './settings/manage.js';
import { TeamRules } from './settings/rules.js';

export type { NewInvite };

export interface TeamPageErrors {
  form?: string;
  name?: string;
  confirm?: string;
  /** The access token settings' lifetime field. */
  max_days?: string;
  invite?: InviteErrors;
}

/** What a refused form on the team page sent, shown again. */
export interface TeamPageValues {
  name?: string;
  inviteRole?: string;
  inviteMaxUses?: string;
  inviteDays?: string;
  inviteNote?: string;
}

/**
 * The team page: its members and their limits, the team's rules, invites (admins) and the team's own
 * settings. Each part is its feature's component; this page only orders them.
 */
export function TeamPage(props: {
  c: Context<AppEnv>;
  user: SessionUser;
  ws: TeamNav;
  overview: TeamOverview;
  notice?: string | null;
  /** Shown once, right after creating an invite. */
  newInvite?: NewInvite | null;
  errors?: TeamPageErrors;
  values?: TeamPageValues;
}) {
  const { c, user, ws, overview, errors = {}, values = {} } = props;
  const admin = ws.role !== 'member';
  const team = ws.kind === 'team';
  const credentialsHref = `/account/credentials?workspace=${encodeURIComponent(ws.id)}`;
  return (
    <Frame c={c} user={user} title={ws.name} copyButtons={Boolean(props.newInvite)} localTimes>
      <TeamHeader ws={ws} title={ws.name} current="team" />
      <Notice message={props.notice} />
      <FormError id="form-error" message={errors.form} />
      {overview.hasCredential ? null : (
        <p class="notice warn">
          No API credentials are linked yet: tool calls in this workspace fail until{' '}
          {admin ? 'you link them' : 'an admin links them'} on the{' '}
          <a href={credentialsHref}>API credentials page</a>.
        </p>
      )}
      {props.newInvite ? <NewInviteCard invite={props.newInvite} /> : null}
      {team ? (
        <MembersSection c={c} user={user} ws={ws} members={overview.members} />
      ) : (
        <p>
          Your personal workspace is yours alone. To share API credentials with other people,{' '}
          <a href="/workspaces/new">create a team</a>.
        </p>
      )}
      {team ? <TeamRules c={c} ws={ws} settings={overview.settings} tokenError={errors.max_days} /> : null}
      {team && admin ? (
        <InviteSection
          c={c}
          ws={ws}
          invites={overview.invites}
          errors={errors.invite ?? {}}
          values={{
            role: values.inviteRole,
            maxUses: values.inviteMaxUses,
            days: values.inviteDays,
            note: values.inviteNote,
          }}
        />
      ) : null}
      {team ? <ManageTeam c={c} ws={ws} errors={errors} renameValue={values.name} /> : null}
      <p>
        <a href="/account">Back to your account</a>
      </p>
    </Frame>
  );
}
