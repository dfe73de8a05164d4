import type { Context } from 'hono';
import { listWorkspacesForUser } from '../accounts/workspaces.js';
import type { AppEnv, SessionUser } from '../http/env.js';
import { EVERY_TOOL, storedSelection } from '../mcp/tools/toolsets.js';
import type { OAuthClient } from '../oauth/clients/types.js';
import { consentedScopes, lastChosenView, memberScopeCeiling } from '../oauth/consents.js';
import type { OAuthDeps } from '../oauth/deps.js';
import type { PendingAuthorization } from '../oauth/pending.js';
import { isLoopbackRedirect, redirectDisplayHost } from '../oauth/redirect-uris.js';
import type { Scope } from '../oauth/scopes.js';
import { ConsentPage } from './consent.js';
import { csrfField } from './csrf.js';
import { askedView } from './kit/toolsets.js';
import { privatePage } from './layout.js';

/** The consent page for a validated request, first shown or shown again with an error. */
export async function consentPage(
  c: Context<AppEnv>,
  deps: OAuthDeps,
  props: {
    user: SessionUser;
    client: OAuthClient;
    pending: PendingAuthorization;
    request: string;
    error?: string;
  },
  status: 200 | 400 = 200,
) {
  const { user, client, pending } = props;
  const workspaces = await listWorkspacesForUser(deps.db, user.id);
  const usable = workspaces.filter((w) => w.hasCredential);
  const earlier = await consentedScopes(deps.db, user.id, client.clientId);
  // The tools pre-ticked: what the client asked for by its URL or headers, else what the person chose
  // for this app before, else every toolset.
  const lastView = await lastChosenView(deps.db, user.id, client.clientId);
  const tools = pending.asked
    ? askedView(pending.asked)
    : lastView
      ? storedSelection(lastView.toolsets, lastView.readOnly)
      : EVERY_TOOL;
  const teamLimits: { workspace: string; excluded: Scope[] }[] = [];
  for (const w of usable) {
    const ceiling = await memberScopeCeiling(deps.db, w.id, user.id);
    const excluded = ceiling ? pending.scopes.filter((s) => !ceiling.has(s)) : [];
    if (excluded.length) teamLimits.push({ workspace: w.name, excluded });
  }
  // Browsers apply form-action to the redirect after the form post, so allow the client's origin.
  c.header('Content-Security-Policy', consentPolicy(pending.redirectUri));
  return privatePage(
    c,
    <ConsentPage
      signedInAs={user.email}
      csrf={csrfField(c)}
      csrfToken={c.get('csrfToken')}
      clientName={
        client.clientName ?? (client.kind === 'cimd' ? new URL(client.clientId).host : 'An unnamed app')
      }
      verifiedHost={client.kind === 'cimd' ? new URL(client.clientId).host : null}
      redirectHost={redirectDisplayHost(pending.redirectUri)}
      loopbackOnly={client.redirectUris.every(isLoopbackRedirect)}
      scopes={pending.scopes}
      newScopes={earlier ? pending.scopes.filter((s) => !earlier.has(s)) : []}
      teamLimits={teamLimits}
      tools={tools}
      workspaces={usable}
      unlinkedCount={workspaces.length - usable.length}
      request={props.request}
      error={props.error ?? null}
    />,
    status,
  );
}

/** The consent page's own policy: nothing loads from elsewhere, and its form may post only here and to the app. */
function consentPolicy(redirectUri: string): string {
  const url = new URL(redirectUri);
  const target = url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
  return [
    "default-src 'none'",
    "style-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    `form-action 'self' ${target}`,
  ].join('; ');
}
