import type { Context } from 'hono';
import type { AppEnv } from '../../../http/env.js';
import {
  INVITE_MAX_DAYS,
  INVITE_NOTE_MAX_LENGTH,
  type InviteErrors,
  type InviteView,
} from '../../../teams/invites.js';
import { csrfField } from '../../csrf.js';
import { CopyField } from '../../kit/copy.js';
import { Field, SelectField } from '../../kit/fields.js';
import { CardTable } from '../../kit/table.js';
import { Time } from '../../kit/time.js';
import { ROLE_NAMES, type TeamNav, teamPath } from '../frame.js';

/** An invite link just created: shown once (only its hash is stored). */
export interface NewInvite {
  url: string;
  role: string;
  expiresAt: number;
  maxUses: number | null;
  note: string | null;
}

const DAY_MS = 24 * 3600 * 1000;

function usesWords(maxUses: number | null): string {
  return maxUses === null ? 'for any number of people' : maxUses === 1 ? 'once' : `up to ${maxUses} times`;
}

/** "in 6 days", "in 3 hours", "expired": how long an invite link still works. */
export function expiresIn(expiresAt: number, now = Date.now()): string {
  const left = expiresAt - now;
  if (left <= 0) return 'expired';
  if (left >= DAY_MS) {
    const days = Math.round(left / DAY_MS);
    return `in ${days} day${days === 1 ? '' : 's'}`;
  }
  const hours = Math.max(1, Math.round(left / 3_600_000));
  return `in ${hours} hour${hours === 1 ? '' : 's'}`;
}

export function NewInviteCard({ invite }: { invite: NewInvite }) {
  return (
    <section class="card" aria-labelledby="new-invite-heading">
      <h2 id="new-invite-heading">Invite link created</h2>
      <p>
        Copy this link now and send it to{' '}
        {invite.note ? <strong>{invite.note}</strong> : 'the person you are inviting'}: it is shown only once.
        It joins them as {invite.role === 'admin' ? 'an admin' : 'a member'}, {usesWords(invite.maxUses)},
        until <Time ms={invite.expiresAt} /> ({expiresIn(invite.expiresAt)}).
      </p>
      <CopyField id="invite-link" label="Invite link" value={invite.url} what="the invite link" />
    </section>
  );
}

/** What a link that no longer works says in the Expires column. */
const STATE_NAMES: Record<InviteView['state'], string> = {
  usable: 'Open',
  expired: 'Expired',
  used_up: 'Used up',
  revoked: 'Withdrawn',
};

/** Owners and admins: the invite form and the team's invite links (open ones can be withdrawn). */
export function InviteSection(props: {
  c: Context<AppEnv>;
  ws: TeamNav;
  invites: InviteView[];
  errors: InviteErrors;
  values: {
    role?: string | undefined;
    maxUses?: string | undefined;
    days?: string | undefined;
    note?: string | undefined;
  };
}) {
  const { c, ws, errors, values } = props;
  return (
    <section aria-labelledby="invite-heading">
      <h2 id="invite-heading">Invite people</h2>
      <p class="muted">
        An invite link lets its holder join after signing in or creating an account. No email is sent: copy
        the link and share it yourself.
      </p>
      <form method="post" action={teamPath(ws, '/invites')} class="fields-row" novalidate>
        {csrfField(c)}
        <SelectField
          id="invite-role"
          name="role"
          label="Invite role"
          value={values.role ?? 'member'}
          error={errors.role}
          options={[
            { value: 'member', label: 'Member' },
            { value: 'admin', label: 'Admin' },
          ]}
        />
        <Field
          required={false}
          id="invite-note"
          name="note"
          label="Who is it for? (optional)"
          value={values.note ?? ''}
          maxLength={INVITE_NOTE_MAX_LENGTH}
          error={errors.note}
          hint="A note for the team's admins, e.g. a name: shown in the list below, never to the invitee."
        />
        <Field
          required={false}
          id="invite-uses"
          name="max_uses"
          label="Uses"
          value={values.maxUses ?? '1'}
          inputMode="numeric"
          error={errors.maxUses}
          hint="1 for a single person; empty for any number of people until it expires."
        />
        <Field
          required={false}
          id="invite-days"
          name="expires_in_days"
          label="Expires after (days)"
          value={values.days ?? '7'}
          inputMode="numeric"
          error={errors.expiresInDays}
          hint={`From 1 to ${INVITE_MAX_DAYS} days.`}
        />
        <div class="actions">
          <button type="submit">Create invite link</button>
        </div>
      </form>
      {props.invites.length ? (
        <>
          <h3>Invite links</h3>
          <CardTable
            caption="Invite links"
            rows={props.invites}
            columns={[
              {
                label: 'For',
                cell: (i) =>
                  i.note ? <span class="token">{i.note}</span> : <span class="muted">No note</span>,
              },
              { label: 'Role', cell: (i) => ROLE_NAMES[i.role] },
              { label: 'Used', cell: (i) => `${i.uses} of ${i.maxUses ?? 'unlimited'}` },
              {
                label: 'Expires',
                cell: (i) =>
                  i.state === 'usable' ? (
                    <>
                      <Time ms={i.expiresAt} /> <span class="muted">({expiresIn(i.expiresAt)})</span>
                    </>
                  ) : (
                    <>
                      {STATE_NAMES[i.state]}
                      {i.state === 'expired' ? (
                        <>
                          {' '}
                          on <Time ms={i.expiresAt} />
                        </>
                      ) : null}
                    </>
                  ),
              },
              {
                label: 'Created',
                cell: (i) => (
                  <>
                    <Time ms={i.createdAt} />
                    {i.createdByEmail ? (
                      <span class="muted">
                        {' '}
                        by <span class="token">{i.createdByEmail}</span>
                      </span>
                    ) : null}
                  </>
                ),
              },
              {
                label: '',
                cell: (i) =>
                  i.state === 'usable' ? (
                    <form method="post" action={teamPath(ws, `/invites/${encodeURIComponent(i.id)}/revoke`)}>
                      {csrfField(c)}
                      <button type="submit" class="secondary small">
                        Withdraw
                        <span class="visually-hidden"> the invite link {i.note ? `for ${i.note}` : ''}</span>
                      </button>
                    </form>
                  ) : null,
              },
            ]}
          />
        </>
      ) : null}
    </section>
  );
}
