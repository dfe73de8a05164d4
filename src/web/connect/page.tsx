import type { Context } from 'hono';
import type { WorkspaceSummary } from '../../accounts/workspaces.js';
import type { AppEnv, SessionUser } from '../../http/env.js';
import { CopyLine } from '../kit/copy.js';
import { Notice } from '../kit/fields.js';
import { Layout } from '../layout.js';
import { Automation, MORE_WAYS, type ToolChoice } from './automation.js';
import { CLIENTS, ClientSteps } from './clients.js';
import type { ClientSnippets } from './snippets.js';
import { WAYS_IN, WaysIn } from './ways-in.js';
import type { WaysInSnippets } from './ways-in-snippets.js';

export function ConnectPage(props: {
  c: Context<AppEnv>;
  user: SessionUser | null;
  snippets: ClientSnippets;
  /** The local stdio server and the upstream headers: the ways in without signing in. */
  ways: WaysInSnippets;
  /** The upstream header names, and whether /mcp accepts them (ALLOW_UPSTREAM_HEADERS). */
  headers: { tokenHeader: string; userHeader: string; accepted: boolean };
  /** Signed in: whether any of their workspaces has API credentials (null when signed out). */
  hasCredentials: boolean | null;
  sandboxMode: boolean;
  /** The tools chosen in the URL builder. */
  choice: ToolChoice;
  /** A team of the visitor's to set up first (after creating it). */
  team?: (WorkspaceSummary & { justCreated: boolean }) | null;
}) {
  const { c, user, snippets, team } = props;
  return (
    <Layout
      title="Connect a client"
      signedInAs={user?.email ?? null}
      csrfToken={c.get('csrfToken')}
      next="/connect"
      copyButtons
    >
      <h1>Connect a client</h1>
      {team?.justCreated ? <Notice message={`Team “${team.name}” created.`} /> : null}
      {team ? <TeamSetup team={team} /> : null}
      <p class="lead">
        Add this server to your AI client once. The first time, the client opens your browser: sign in here
        and click <strong>Allow</strong>. Nobody pastes a token anywhere.
      </p>
      <section class="card" aria-labelledby="url-heading">
        <h2 id="url-heading">Your MCP server URL</h2>
        <CopyLine id="mcp-url" value={snippets.mcpUrl} what="the MCP server URL" />
        <Readiness user={user} hasCredentials={props.hasCredentials} sandboxMode={props.sandboxMode} />
      </section>
      <nav aria-label="Clients">
        <p>
          Steps for:{' '}
          {[...CLIENTS, ...WAYS_IN, ...MORE_WAYS].map((client, i) => (
            <>
              {i > 0 ? ' · ' : null}
              <a href={`#${client.id}`}>{client.title}</a>
            </>
          ))}
        </p>
      </nav>
      <ClientSteps s={snippets} />
      <p>
        Every app connected this way is listed on <a href="/account">your account page</a>, with what it may
        do, and can be disconnected there.
      </p>
      <WaysIn s={props.ways} headers={props.headers} />
      <Automation mcpUrl={snippets.mcpUrl} signedIn={user !== null} choice={props.choice} />
    </Layout>
  );
}

/** What is still missing before tools can work, for this visitor. */
function Readiness(props: {
  user: SessionUser | null;
  hasCredentials: boolean | null;
  sandboxMode: boolean;
}) {
  return (
    <>
      {props.user === null ? (
        <p>
          You will need an account: <a href="/sign-up?next=%2Fconnect">create one</a> or{' '}
          <a href="/sign-in?next=%2Fconnect">sign in</a> now, or when your client opens the browser.
        </p>
      ) : props.hasCredentials ? (
        <p class="ok">
          Your API credentials are linked: the tools will work as soon as you allow the client.
        </p>
      ) : (
        <p class="notice warn">
          No workspace of yours has API credentials yet. <a href="/account/credentials">Link them</a> first
          (or when the client asks), or tool calls will fail.
        </p>
      )}
      {props.sandboxMode ? (
        <p class="muted">
          Sandbox mode: the tools talk to the built-in emulator with synthetic data, and “Use sandbox
          credentials” on the credentials page links a key in one click.
        </p>
      ) : null}
    </>
  );
}

/** A team's steps before its members' clients work: credentials, people, then the client below. */
function TeamSetup({ team }: { team: WorkspaceSummary }) {
  const admin = team.role !== 'member';
  const teamHref = `/workspaces/${encodeURIComponent(team.id)}`;
  return (
    <section class="card" aria-labelledby="team-setup-heading">
      <h2 id="team-setup-heading" class="token">
        Set up {team.name}
      </h2>
      <ol class="steps">
        <li>
          {team.hasCredential ? (
            <>
              <span class="ok">Done:</span> the team’s API credentials are linked.
            </>
          ) : admin ? (
            <>
              <a href={`/account/credentials?workspace=${encodeURIComponent(team.id)}`}>
                Link the team’s API credentials
              </a>
              : every member’s tool calls use them, each member as their own user.
            </>
          ) : (
            'An owner or admin links the team’s API credentials; until then its tool calls fail.'
          )}
        </li>
        <li>
          {admin ? (
            <>
              <a href={`${teamHref}#invite-heading`}>Invite people</a> with a link from the team page.
            </>
          ) : (
            <>
              See who is in the team on <a href={teamHref}>the team page</a>.
            </>
          )}
        </li>
        <li>
          Add this server to your AI client (below). When it asks you to allow it, choose{' '}
          <strong class="token">{team.name}</strong> as the workspace.
        </li>
      </ol>
    </section>
  );
}
