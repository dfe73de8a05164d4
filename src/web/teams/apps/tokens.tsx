import type { Context } from 'hono';
import type { AppEnv } from '../../../http/env.js';
import type { AccessTokenView } from '../../../teams/access-token-list.js';
import { csrfField } from '../../csrf.js';
import { PermissionList } from '../../kit/permissions.js';
import { CardTable } from '../../kit/table.js';
import { Time } from '../../kit/time.js';
import { toolsetWords } from '../../kit/toolsets.js';

/**
 * The workspace's live access tokens, for its owners and admins: whose, what each may do, and Revoke
 * (the token itself is never shown again after its creation).
 */
export function WorkspaceTokens(props: { c: Context<AppEnv>; tokens: AccessTokenView[]; action: string }) {
  return (
    <section aria-labelledby="team-tokens-heading">
      <h2 id="team-tokens-heading">Access tokens</h2>
      <p class="muted">
        Tokens members made on their account page for scripts and CI jobs. Each acts as its member, within
        their team settings, until it expires or is revoked.
      </p>
      {props.tokens.length ? (
        <CardTable
          caption="Access tokens"
          title={0}
          rows={props.tokens}
          columns={[
            { label: 'Token', cell: (t) => <span class="token">{t.name}</span> },
            { label: 'Member', cell: (t) => <span class="token">{t.userEmail}</span> },
            {
              label: 'What it can do',
              cell: (t) => <PermissionList allowed={t.scopes} whose="the member’s" />,
            },
            { label: 'Tools', cell: (t) => toolsetWords(t.toolsets, t.readOnly) },
            { label: 'Expires', cell: (t) => <Time ms={t.expiresAt} /> },
            { label: 'Last used', cell: (t) => <Time ms={t.lastUsedAt} /> },
            {
              label: '',
              cell: (t) => (
                <form method="post" action={props.action}>
                  {csrfField(props.c)}
                  <input type="hidden" name="token" value={t.grantId} />
                  <button
                    type="submit"
                    class="danger small"
                    aria-label={`Revoke ${t.name} of ${t.userEmail}`}
                  >
                    Revoke
                  </button>
                </form>
              ),
            },
          ]}
        />
      ) : (
        <p class="muted">No access tokens.</p>
      )}
    </section>
  );
}
