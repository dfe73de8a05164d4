import { type Context, Hono } from 'hono';
import { listWorkspacesForUser } from '../accounts/workspaces.js';
import type { Store } from '../db/store/index.js';
import type { AppEnv } from '../http/env.js';
import { checkAuthorizeRequest, redirectWith } from '../oauth/authorize-request.js';
import { findClient, isUrlClientId, touchClient } from '../oauth/clients/repository.js';
import type { OAuthClient } from '../oauth/clients/types.js';
import { createAuthorizationCode } from '../oauth/codes.js';
import {
  hasConsentedTo,
  memberScopeCeiling,
  rememberConsent,
  rememberedWorkspace,
} from '../oauth/consents.js';
import { decideOnce } from '../oauth/decisions.js';
import { clientLookup, type OAuthDeps } from '../oauth/deps.js';
import { OAuthError } from '../oauth/errors.js';
import {
  PENDING_TTL_SECONDS,
  type PendingAuthorization,
  signPending,
  verifyPending,
} from '../oauth/pending.js';
import type { Scope } from '../oauth/scopes.js';
import { newId } from '../security/tokens.js';
import { AuthorizeErrorPage } from './consent.js';
import { consentPage } from './consent-response.js';
import { verifyCsrf } from './csrf.js';
import { csrfGate } from './kit/csrf-gate.js';
import { readFormAll } from './kit/form-data.js';
import { askedView, sameView, toolsetChoiceOf } from './kit/toolsets.js';
import { privatePage } from './layout.js';
import { requireUser } from './session.js';

/**
 * The browser side of the authorization endpoint (RFC 6749 §3.1), built on src/oauth's pure steps:
 * GET /authorize → (sign-in) → (link credentials) → consent → POST /authorize/decision → redirect
 * with code, state and iss. Every visit to GET /authorize validates the request from scratch, so the
 * detours through sign-in and the credentials page carry nothing that must be trusted; the consent
 * form carries the validated request signed (pending.ts), with a one-use id (decisions.ts).
 */
export function authorizeRoutes(deps: OAuthDeps) {
  const app = new Hono<AppEnv>();
  const issuer = deps.config.publicUrl;

  const showError = (c: Context<AppEnv>, message: string, status: 400 | 403 | 429 = 400) =>
    privatePage(
      c,
      <AuthorizeErrorPage message={message} signedInAs={c.get('user')?.email ?? null} />,
      status,
    );

  app.get('/authorize', async (c) => {
    const params = new URL(c.req.url).searchParams;
    const clientId = params.get('client_id');
    if (!clientId) return showError(c, 'The app did not identify itself (client_id is missing).');
    let client: OAuthClient | null;
    try {
      client = await findClient(deps.db, clientId, clientLookup(deps, true, c));
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      if (error.status !== 429) return showError(c, error.description);
      c.header('Retry-After', String(error.retryAfterSeconds ?? 60));
      return showError(c, error.description, 429);
    }
    if (!client) {
      return showError(
        c,
        isUrlClientId(clientId)
          ? 'The app could not be identified.'
          : 'This app is not registered here (unknown client_id). Remove and add the connector again.',
      );
    }
    const check = checkAuthorizeRequest(client, params, deps.config.resourceUrl);
    if (check.kind === 'show') return showError(c, check.message);
    if (check.kind === 'redirect') {
      // RFC 9700 §4.11.2: anyone can register a client (or publish a metadata document) whose redirect
      // URI is theirs, so an error is sent back only to a client this person has connected before;
      // otherwise the server would redirect anyone anywhere. Everyone else sees the error here.
      const user = c.get('user');
      if (!user || !(await hasConsentedTo(deps.db, user.id, client.clientId))) {
        return showError(c, `The app's request cannot be accepted: ${check.description}`);
      }
      return c.redirect(
        redirectWith(
          check.redirectUri,
          { error: check.error, error_description: check.description, state: check.state },
          issuer,
        ),
        302,
      );
    }

    const user = requireUser(c);
    if (user instanceof Response) return user;
    await touchClient(deps.db, client);

    const workspaces = await listWorkspacesForUser(deps.db, user.id);
    if (!workspaces.some((w) => w.hasCredential)) {
      // The person needs upstream credentials before any tool can work: link them, then come back.
      const next = `${new URL(c.req.url).pathname}${new URL(c.req.url).search}`;
      return c.redirect(`/account/credentials?${new URLSearchParams({ next, reason: 'connect' })}`, 303);
    }

    if (!check.forceConsent) {
      const remembered = await rememberedWorkspace(deps.db, user.id, client.clientId, check.scopes);
      const ws = remembered?.workspaceId ?? null;
      const scopes = ws ? await withinCeiling(deps.db, ws, user.id, check.scopes) : [];
      // A client that now asks for another view of the tools is asked again; otherwise the app keeps
      // the tools its person chose.
      const sameTools = !check.asked || (remembered && sameView(remembered, askedView(check.asked)));
      if (remembered && ws && scopes.length && sameTools) {
        const code = await createAuthorizationCode(deps.db, {
          clientId: client.clientId,
          userId: user.id,
          workspaceId: ws,
          toolsets: remembered.toolsets,
          readOnly: remembered.readOnly,
          redirectUri: check.redirectUri,
          redirectUriSent: check.redirectUriSent,
          codeChallenge: check.codeChallenge,
          scopes,
          resource: check.resource,
        });
        return c.redirect(redirectWith(check.redirectUri, { code, state: check.state }, issuer), 302);
      }
    }

    const pending: PendingAuthorization = {
      decisionId: newId(),
      clientId: client.clientId,
      redirectUri: check.redirectUri,
      redirectUriSent: check.redirectUriSent,
      codeChallenge: check.codeChallenge,
      scopes: check.scopes,
      resource: check.resource,
      asked: check.asked,
      state: check.state,
      userId: user.id,
    };
    return consentPage(c, deps, { user, client, pending, request: await signPending(deps.config, pending) });
  });

  // A refused consent form sends the person back to their app rather than to their account.
  const gate = csrfGate(deps.config, {
    refused: (c) => showError(c, 'This form was sent from another site and was refused.', 403),
  });

  app.post('/authorize/decision', gate.sameOrigin, async (c) => {
    // Read before the CSRF check: a signed-out browser gets its own message, not "expired".
    const form = await readFormAll(c);
    const user = c.get('user');
    if (!user)
      return showError(c, 'You were signed out before deciding. Start the connection again from your app.');
    if (!verifyCsrf(c, form))
      return showError(c, 'This form expired or was not sent by this site. Start again from your app.', 403);
    const request = typeof form.request === 'string' ? form.request : null;
    const pending = request ? await verifyPending(deps.config, request) : null;
    if (!request || !pending?.decisionId || pending.userId !== user.id) {
      return showError(c, 'This approval page has expired. Start the connection again from your app.');
    }
    const allow = form.decision === 'allow';
    const workspaceId = typeof form.workspace === 'string' ? form.workspace : '';
    const ticked = new Set([form.scope].flat().filter((v): v is string => typeof v === 'string'));
    const chosen = pending.scopes.filter((s) => ticked.has(s));
    const view = toolsetChoiceOf(form);
    if (allow) {
      const workspace = (await listWorkspacesForUser(deps.db, user.id)).find((w) => w.id === workspaceId);
      if (!workspace?.hasCredential) {
        return showError(c, 'Choose one of your workspaces that has API credentials linked.');
      }
      if (chosen.length === 0 || view.toolsets === '') {
        // Nothing decided yet: the same form (and its one-use id) is shown again.
        const client = await findClient(deps.db, pending.clientId, clientLookup(deps, false, c)).catch(
          () => null,
        );
        if (!client) return showError(c, 'This app is no longer registered here. Start again from your app.');
        const error =
          chosen.length === 0
            ? 'Tick at least one permission to allow, or choose Deny.'
            : 'Tick at least one group of tools to allow, or choose Deny.';
        return consentPage(c, deps, { user, client, pending, request, error }, 400);
      }
    }

    const outcome = await decideOnce(
      deps.db,
      deps.secrets,
      { id: pending.decisionId, userId: user.id, expiresAt: Date.now() + PENDING_TTL_SECONDS * 1000 },
      async (tx) => {
        const refuse = (description: string) =>
          redirectWith(
            pending.redirectUri,
            { error: 'access_denied', error_description: description, state: pending.state },
            issuer,
          );
        if (!allow) {
          deps.logger.info({ clientId: pending.clientId }, 'authorization denied by the user');
          return refuse('The user denied access.');
        }
        const scopes = await withinCeiling(tx, workspaceId, user.id, chosen);
        if (scopes.length === 0) return refuse('Your workspace role allows none of the requested scopes.');
        // What the person chose is remembered (a later request within it needs no new consent); the
        // code carries what their team role allows of it.
        await rememberConsent(tx, {
          userId: user.id,
          clientId: pending.clientId,
          workspaceId,
          scopes: chosen,
          view,
        });
        const code = await createAuthorizationCode(tx, {
          clientId: pending.clientId,
          userId: user.id,
          workspaceId,
          redirectUri: pending.redirectUri,
          redirectUriSent: pending.redirectUriSent ?? true,
          codeChallenge: pending.codeChallenge,
          scopes,
          ...view,
          resource: pending.resource,
        });
        return redirectWith(pending.redirectUri, { code, state: pending.state }, issuer);
      },
    );
    if (outcome.kind === 'already-answered') {
      return showError(
        c,
        'You already answered this request. Go back to your app; if it did not connect, start again from the app.',
      );
    }
    // 303 See Other: the browser follows with GET and never posts the consent form again, which a 307
    // would (RFC 9110 §15.4.4, §15.4.8).
    return c.redirect(outcome.location, 303);
  });
  return app;
}

/** The requested scopes limited by the member's ceiling in that workspace (team policy). */
async function withinCeiling(
  db: Store,
  workspaceId: string,
  userId: string,
  scopes: readonly Scope[],
): Promise<Scope[]> {
  const ceiling = await memberScopeCeiling(db, workspaceId, userId);
  return ceiling ? scopes.filter((s) => ceiling.has(s)) : [...scopes];
}
