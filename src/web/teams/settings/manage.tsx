import type { Context } from 'hono';
import type { AppEnv } from '../../../http/env.js';
import { TEAM_NAME_MAX_LENGTH } from '../../../teams/teams.js';
import { csrfField } from '../../csrf.js';
import { Field } from '../../kit/fields.js';
import { type TeamNav, teamPath } from '../frame.js';

/**
 * The team's own settings, side by side on wide screens: rename (owners and admins), leave (anyone),
 * delete (owners, typing the name to confirm).
 */
export function ManageTeam(props: {
  c: Context<AppEnv>;
  ws: TeamNav;
  errors: { name?: string; confirm?: string };
  renameValue?: string | undefined;
}) {
  const { c, ws, errors } = props;
  const admin = ws.role !== 'member';
  return (
    <section aria-labelledby="manage-heading">
      <h2 id="manage-heading">The team itself</h2>
      <div class="columns">
        {admin ? (
          <section class="card" aria-labelledby="rename-heading">
            <h3 id="rename-heading">Rename</h3>
            <form method="post" action={teamPath(ws, '/rename')} class="stack" novalidate>
              {csrfField(c)}
              <Field
                id="rename"
                name="name"
                label="Team name"
                value={props.renameValue ?? ws.name}
                maxLength={TEAM_NAME_MAX_LENGTH}
                error={errors.name}
              />
              <div class="actions">
                <button type="submit" class="secondary">
                  Rename team
                </button>
              </div>
            </form>
          </section>
        ) : null}
        <section class="card" aria-labelledby="leave-heading">
          <h3 id="leave-heading">Leave</h3>
          <p class="muted">
            Leaving ends your access at once: the apps you connected in this team are disconnected.
          </p>
          <form method="post" action={teamPath(ws, '/leave')} class="actions">
            {csrfField(c)}
            <button type="submit" class="secondary">
              Leave team
            </button>
          </form>
        </section>
        {ws.role === 'owner' ? (
          <section class="card" aria-labelledby="delete-heading">
            <h3 id="delete-heading">Delete team</h3>
            <p class="muted">
              Deleting removes every member, invite, connected app and the linked credentials. The audit trail
              is kept. This cannot be undone.
            </p>
            <form method="post" action={teamPath(ws, '/delete')} class="stack" novalidate>
              {csrfField(c)}
              <Field
                id="confirm"
                name="confirm"
                label="Type the team name to confirm"
                autocomplete="off"
                error={errors.confirm}
                hint={<span class="token">{ws.name}</span>}
              />
              <div class="actions">
                <button type="submit" class="danger">
                  Delete team
                </button>
              </div>
            </form>
          </section>
        ) : null}
      </div>
    </section>
  );
}
