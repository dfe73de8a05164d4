import type { Context } from 'hono';
import type { AppEnv, SessionUser } from '../../http/env.js';
import { CopyLine } from '../kit/copy.js';
import { Layout } from '../layout.js';
import { CLIENTS, ClientSteps } from './clients.js';
import type { ClientSnippets } from './snippets.js';

export function ConnectPage(props: {
  c: Context<AppEnv>;
  user: SessionUser | null;
  snippets: ClientSnippets;
  /** Signed in: whether any of their workspaces has API credentials (null when signed out). */
  hasCredentials: boolean | null;
  sandboxMode: boolean;
}) {
  const { c, user, snippets } = props;
  return (
    <Layout
      title="Connect a client"
      signedInAs={user?.email ?? null}
      csrfToken={c.get('csrfToken')}
      next="/connect"
      copyButtons
    >
      <h1>Connect a client</h1>
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
          {CLIENTS.map((client, i) => (
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
