import type { Context } from 'hono';
import type { WorkspaceSummary } from '../../accounts/workspaces.js';
import type { AppEnv, SessionUser } from '../../http/env.js';
import type { AppWithPermissions } from '../../teams/app-permissions.js';
import { CopyLine } from '../kit/copy.js';
import { Time } from '../kit/time.js';
import { Layout } from '../layout.js';

export interface HomeProps {
  c: Context<AppEnv>;
  mcpUrl: string;
  sandboxMode: boolean;
  tools: ReadonlyArray<{ name: string; summary: string }>;
  /** Signed in: who, their workspaces and connected apps. */
  me: { user: SessionUser; workspaces: WorkspaceSummary[]; apps: AppWithPermissions[] } | null;
}

export function HomePage(props: HomeProps) {
  const { c, me } = props;
  return (
    <Layout
      title="Home"
      signedInAs={me?.user.email ?? null}
      csrfToken={c.get('csrfToken')}
      copyButtons
      localTimes={me !== null}
    >
      <h1>Social Intel MCP</h1>
      <p class="lead">
        Keyword and account searches across social platforms, expert search and research agents, as tools for
        Claude, ChatGPT, VS Code, Cursor or any MCP client.
      </p>
      {props.sandboxMode ? (
        <p class="notice warn" role="status">
          Sandbox mode: no upstream API is configured, so every tool talks to the built-in emulator with
          synthetic data. Set UPSTREAM_SEARCH_URL and UPSTREAM_AGENT_URL to use the real service.
        </p>
      ) : null}
      <section class="card" aria-labelledby="connect-heading">
        <h2 id="connect-heading">Connect</h2>
        <p>
          Add this URL as a remote MCP server (custom connector) in your AI client, then sign in when it asks:
        </p>
        <CopyLine id="mcp-url" value={props.mcpUrl} what="the MCP server URL" />
        {me ? (
          <p>
            <a href="/connect">Step-by-step for each client</a>
          </p>
        ) : (
          <p>
            <a href="/sign-up">Create an account</a> or <a href="/sign-in">sign in</a> to link your API
            credentials. <a href="/connect">How to add the server to your client</a>
          </p>
        )}
      </section>
      {me ? <SignedIn workspaces={me.workspaces} apps={me.apps} /> : null}
      {props.tools.length ? (
        <>
          <h2>Tools ({props.tools.length})</h2>
          <ul class="tools">
            {props.tools.map((tool) => (
              <li>
                <code>{tool.name}</code> — {tool.summary}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </Layout>
  );
}

function SignedIn({ workspaces, apps }: { workspaces: WorkspaceSummary[]; apps: AppWithPermissions[] }) {
  const linked = workspaces.some((w) => w.hasCredential);
  return (
    <>
      {linked ? null : (
        <p class="notice warn">
          None of your workspaces has API credentials yet, so tools cannot work.{' '}
          <a href="/account/credentials">Link your API credentials</a>
        </p>
      )}
      <div class="columns">
        <section class="card" aria-labelledby="workspaces-heading">
          <h2 id="workspaces-heading">Your workspaces</h2>
          <ul class="plain">
            {workspaces.map((w) => (
              <li>
                <a href={`/workspaces/${encodeURIComponent(w.id)}`} class="token">
                  {w.name}
                </a>
                {w.kind === 'team' ? <span class="muted"> · team</span> : null}
                {' — '}
                {w.hasCredential ? (
                  <span class="ok">credentials linked</span>
                ) : (
                  <a href={`/account/credentials?workspace=${encodeURIComponent(w.id)}`}>link credentials</a>
                )}
              </li>
            ))}
          </ul>
          <p>
            <a href="/workspaces/new">Create a team</a>
          </p>
        </section>
        <section class="card" aria-labelledby="apps-heading">
          <h2 id="apps-heading">Connected apps</h2>
          {apps.length ? (
            <ul class="plain">
              {apps.map((app) => (
                <li>
                  <strong class="token">{app.clientName}</strong>{' '}
                  <span class="muted">in {app.workspaceName}</span>
                  <br />
                  <span class="muted">
                    {permissionCount(app)} · last used <Time ms={app.lastUsedAt} />
                  </span>
                </li>
              ))}
            </ul>
          ) : (
            <p>
              None yet. <a href="/connect">Connect a client</a>
            </p>
          )}
          <p>
            <a href="/account">What each app may do</a>
          </p>
        </section>
      </div>
    </>
  );
}

function permissionCount(app: AppWithPermissions): string {
  const n = app.effective.length;
  const usable = `${n} permission${n === 1 ? '' : 's'}`;
  return app.blocked.length ? `${usable} (${app.blocked.length} blocked by your team settings)` : usable;
}
