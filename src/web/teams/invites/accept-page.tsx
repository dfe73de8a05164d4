import type { Context } from 'hono';
import type { AppEnv, SessionUser } from '../../../http/env.js';
import { csrfField } from '../../csrf.js';
import { Layout } from '../../layout.js';

/**
 * An invite link opened: who invites you to what (or why the link no longer works), then sign in or
 * create an account to accept, or the "Accept invitation" button.
 */
export function InvitePage(props: {
  c: Context<AppEnv>;
  user: SessionUser | null;
  token: string;
  invite: { workspaceId: string; workspaceName: string; role: 'admin' | 'member' } | null;
  problem?: string | null;
  alreadyMember?: boolean;
}) {
  const { c, user, invite } = props;
  const here = `/invite?${new URLSearchParams({ token: props.token }).toString()}`;
  const body = (() => {
    if (props.problem || !invite) {
      return (
        <p role="alert" class="notice warn">
          {props.problem ?? 'This invitation link is not valid.'}
        </p>
      );
    }
    if (props.alreadyMember) {
      return (
        <>
          <p class="notice ok" role="status">
            You are a member of {invite.workspaceName}.
          </p>
          <p>
            <a href={`/workspaces/${encodeURIComponent(invite.workspaceId)}`}>Go to {invite.workspaceName}</a>
          </p>
        </>
      );
    }
    if (!user) {
      return (
        <>
          <p>
            You are invited to join <strong>{invite.workspaceName}</strong> as{' '}
            {invite.role === 'admin' ? 'an admin' : 'a member'}. Sign in or create an account to accept.
          </p>
          <p class="actions">
            <a href={`/sign-in?${new URLSearchParams({ next: here }).toString()}`}>Sign in to accept</a>
            <a href={`/sign-up?${new URLSearchParams({ invite: props.token, next: here }).toString()}`}>
              Create an account to accept
            </a>
          </p>
        </>
      );
    }
    return (
      <>
        <p>
          You are invited to join <strong>{invite.workspaceName}</strong> as{' '}
          {invite.role === 'admin' ? 'an admin' : 'a member'}. Your AI clients can then act in this team with
          its API credentials, as you.
        </p>
        <form method="post" action="/invite" class="actions">
          {csrfField(c)}
          <input type="hidden" name="token" value={props.token} />
          <input type="hidden" name="workspace" value={invite.workspaceId} />
          <button type="submit">Accept invitation</button>
        </form>
      </>
    );
  })();
  return (
    <Layout
      title="Invitation"
      signedInAs={user?.email ?? null}
      csrfToken={c.get('csrfToken')}
      next={here}
      invite={invite && !props.problem ? props.token : null}
    >
      <h1>Invitation</h1>
      {body}
    </Layout>
  );
}
