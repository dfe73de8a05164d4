import type { Context } from 'hono';
import type { AppEnv, SessionUser } from '../../../http/env.js';
import { mayManage } from '../../../teams/members.js';
import type { MemberWithUsage } from '../../../teams/overview.js';
import { csrfField } from '../../csrf.js';
import { CardTable } from '../../kit/table.js';
import { ROLE_NAMES, type TeamNav, teamPath } from '../frame.js';
import { MemberLimits, UserIdWords } from './limits.js';

/** What the API user id is, said once above the table (the header that carries it is a detail). */
export const USER_ID_MEANING =
  'The API user ID is the name the Social Intelligence API files a member’s searches, agent runs and usage under: every member acts as their own user with the team’s credentials.';

/** The members table: email, role (changeable by those who may), API user ID, limits, actions. */
export function MembersSection(props: {
  c: Context<AppEnv>;
  user: SessionUser;
  ws: TeamNav;
  members: MemberWithUsage[];
}) {
  const { c, user, ws } = props;
  const admin = ws.role !== 'member';
  const manageable = (m: MemberWithUsage) => m.userId !== user.id && mayManage(ws.role, m.role);
  const memberPath = (m: MemberWithUsage, rest = '') =>
    teamPath(ws, `/members/${encodeURIComponent(m.userId)}${rest}`);
  return (
    <section aria-labelledby="members-heading">
      <h2 id="members-heading">Members</h2>
      <p class="muted">{USER_ID_MEANING}</p>
      <CardTable
        title={0}
        caption="Members"
        rows={props.members}
        columns={[
          {
            label: 'Member',
            cell: (m) => (
              <>
                <span class="token">{m.email}</span>
                {m.userId === user.id ? <span class="muted"> (you)</span> : null}
              </>
            ),
          },
          {
            label: 'Role',
            cell: (m) =>
              manageable(m) ? (
                <form method="post" action={memberPath(m, '/role')} class="inline-form">
                  {csrfField(c)}
                  <label for={`role-${m.userId}`} class="visually-hidden">{`Role for ${m.email}`}</label>
                  <select id={`role-${m.userId}`} name="role">
                    {(ws.role === 'owner'
                      ? (['owner', 'admin', 'member'] as const)
                      : (['admin', 'member'] as const)
                    ).map((r) => (
                      <option value={r} selected={m.role === r}>
                        {ROLE_NAMES[r]}
                      </option>
                    ))}
                  </select>
                  <button type="submit" class="secondary small">
                    Change role<span class="visually-hidden"> of {m.email}</span>
                  </button>
                </form>
              ) : (
                ROLE_NAMES[m.role]
              ),
          },
          { label: 'API user ID', cell: (m) => <UserIdWords m={m} /> },
          { label: 'Limits', cell: (m) => <MemberLimits m={m} /> },
          ...(admin
            ? [
                {
                  label: '',
                  cell: (m: MemberWithUsage) => (
                    <div class="row-actions">
                      {manageable(m) || m.userId === user.id ? (
                        <a href={memberPath(m)}>
                          Settings<span class="visually-hidden"> for {m.email}</span>
                        </a>
                      ) : null}
                      {manageable(m) ? (
                        <form method="post" action={memberPath(m, '/remove')}>
                          {csrfField(c)}
                          <button type="submit" class="danger small">
                            Remove<span class="visually-hidden"> {m.email}</span>
                          </button>
                        </form>
                      ) : null}
                    </div>
                  ),
                },
              ]
            : []),
        ]}
      />
    </section>
  );
}
