import { describe, expect, it } from 'vitest';
import { SCOPE_DESCRIPTIONS } from '../../src/oauth/scopes.js';
import { consentSteps } from '../helpers/consent-steps.js';
import { oauthFixture } from '../helpers/oauth-fixture.js';
import {
  authorizeCode,
  authorizeUrl,
  browserGet,
  callbackParams,
  consent,
  exchangeCode,
  freshAddress,
  hiddenField,
  mcpStatus,
  pkce,
  registerClient,
  signedInUser,
  tickedScopes,
  workspaceOptions,
} from '../helpers/oauth-http.js';

/**
 * Consent remembered per user, client and workspace (docs/oauth.md, Rules worth knowing), and the permissions
 * a person ticks on the consent page.
 */
const fx = oauthFixture();
const { codeCount, addTeamWorkspace, openConsent, postDecision } = consentSteps(fx);

describe('remembered consent per (user, client, workspace)', () => {
  it('a second authorize redirects straight back with a code that works', async () => {
    const c = await registerClient(fx.server, {}, freshAddress());
    const first = await authorizeCode(fx.server, fx.user, {
      clientId: c.client_id,
      challenge: pkce().challenge,
    });
    expect(first.consentShown).toBe(true);
    const p = pkce();
    const second = await authorizeCode(fx.server, fx.user, {
      clientId: c.client_id,
      challenge: p.challenge,
      state: 'again',
    });
    expect(second.consentShown).toBe(false);
    expect(second.redirect.status).toBe(302);
    expect(callbackParams(second.redirect).get('state')).toBe('again');
    expect(callbackParams(second.redirect).get('iss')).toBe(fx.server.config.publicUrl);
    const tokens = await exchangeCode(fx.server, {
      clientId: c.client_id,
      code: second.code,
      verifier: p.verifier,
    });
    expect(tokens.status).toBe(200);
    expect(await mcpStatus(fx.server, tokens.body.access_token as string)).toBe(200);
  });

  it('consent is per user: another user of the same client is asked', async () => {
    const c = await registerClient(fx.server, {}, freshAddress());
    await authorizeCode(fx.server, fx.user, { clientId: c.client_id, challenge: pkce().challenge });
    const other = await signedInUser(fx.server);
    const res = await browserGet(
      authorizeUrl(fx.server, { clientId: c.client_id, challenge: pkce().challenge }),
      other.cookie,
    );
    expect(res.status).toBe(200);
    expect(hiddenField(await res.text(), 'request')).not.toBeNull();
  });

  it('consent is per client: another client of the same user is asked', async () => {
    await authorizeCode(fx.server, fx.user, {
      clientId: (await registerClient(fx.server, {}, freshAddress())).client_id,
      challenge: pkce().challenge,
    });
    const c2 = await registerClient(fx.server, {}, freshAddress());
    const res = await browserGet(
      authorizeUrl(fx.server, { clientId: c2.client_id, challenge: pkce().challenge }),
      fx.user.cookie,
    );
    expect(res.status).toBe(200);
  });

  it('consent is per workspace: the remembered code is for the workspace chosen', async () => {
    const member = await signedInUser(fx.server);
    const team = await addTeamWorkspace(member, 'Team Rocket');
    const c = await registerClient(fx.server, {}, freshAddress());
    const first = await consent(
      fx.server,
      member,
      authorizeUrl(fx.server, { clientId: c.client_id, challenge: pkce().challenge }),
      {
        workspace: team,
      },
    );
    expect(workspaceOptions(first.html).sort()).toEqual([member.workspaceId, team].sort());
    const p = pkce();
    const again = await authorizeCode(fx.server, member, { clientId: c.client_id, challenge: p.challenge });
    expect(again.consentShown).toBe(false);
    await exchangeCode(fx.server, { clientId: c.client_id, code: again.code, verifier: p.verifier });
    const grant = (await fx.server.sql.get(
      'SELECT workspace_id FROM oauth_grants WHERE client_id = ? ORDER BY created_at DESC LIMIT 1',
      c.client_id,
    )) as { workspace_id: string };
    expect(grant.workspace_id).toBe(team);
    // Without the team's credentials the remembered consent no longer applies: asked again.
    await fx.server.sql.run('DELETE FROM upstream_credentials WHERE workspace_id = ?', team);
    const res = await browserGet(
      authorizeUrl(fx.server, { clientId: c.client_id, challenge: pkce().challenge }),
      member.cookie,
    );
    expect(res.status).toBe(200);
  });

  it('asked again when the scopes grow, not when they shrink', async () => {
    const c = await registerClient(fx.server, {}, freshAddress());
    await authorizeCode(fx.server, fx.user, {
      clientId: c.client_id,
      challenge: pkce().challenge,
      scope: 'searches:read agent:read',
    });
    const narrower = await authorizeCode(fx.server, fx.user, {
      clientId: c.client_id,
      challenge: pkce().challenge,
      scope: 'searches:read',
    });
    expect(narrower.consentShown).toBe(false);
    const wider = await browserGet(
      authorizeUrl(fx.server, {
        clientId: c.client_id,
        challenge: pkce().challenge,
        scope: 'searches:read searches:write',
      }),
      fx.user.cookie,
    );
    expect(wider.status).toBe(200);
    expect(await wider.text()).toContain(SCOPE_DESCRIPTIONS['searches:write']);
  });

  it('OIDC Core §3.1.2.1: prompt=consent shows the page even when consent is remembered', async () => {
    const c = await registerClient(fx.server, {}, freshAddress());
    await authorizeCode(fx.server, fx.user, { clientId: c.client_id, challenge: pkce().challenge });
    const res = await browserGet(
      authorizeUrl(fx.server, {
        clientId: c.client_id,
        challenge: pkce().challenge,
        extra: { prompt: 'consent' },
      }),
      fx.user.cookie,
    );
    expect(res.status).toBe(200);
  });
});

describe('Choosing permissions on the consent page', () => {
  it('every requested permission is a ticked checkbox labelled in plain words', async () => {
    const { html } = await openConsent(fx.user, {}, 'searches:read agent:write');
    expect(tickedScopes(html)).toEqual(['searches:read', 'agent:write']);
    expect(html).toContain(SCOPE_DESCRIPTIONS['agent:write']);
  });

  it('unticked permissions are not granted: the code, the remembered consent and the token carry the ticked ones', async () => {
    const c = await registerClient(fx.server, {}, freshAddress());
    const p = pkce();
    const { decision } = await consent(
      fx.server,
      fx.user,
      authorizeUrl(fx.server, { clientId: c.client_id, challenge: p.challenge }),
      {
        scopes: ['searches:read', 'agent:read'],
      },
    );
    const code = callbackParams(decision as Response).get('code') as string;
    const tokens = await exchangeCode(fx.server, { clientId: c.client_id, code, verifier: p.verifier });
    expect(tokens.body.scope).toBe('searches:read agent:read');
    const remembered = (await fx.server.sql.get(
      'SELECT scopes FROM consents WHERE user_id = ? AND client_id = ?',
      fx.user.userId,
      c.client_id,
    )) as { scopes: string };
    expect(remembered.scopes).toBe('searches:read agent:read');
    // Asking again for all six is a new question: the page is shown.
    const again = await browserGet(
      authorizeUrl(fx.server, { clientId: c.client_id, challenge: pkce().challenge }),
      fx.user.cookie,
    );
    expect(again.status).toBe(200);
  });

  it('nothing ticked: the page is shown again with a message, the form still usable', async () => {
    const opened = await openConsent(fx.user);
    const empty = await postDecision(
      { csrf: opened.csrf, request: opened.request, workspace: fx.user.workspaceId, decision: 'allow' },
      { cookie: fx.user.cookie },
    );
    expect(empty.status).toBe(400);
    const html = await empty.text();
    expect(html).toMatch(/Tick at least one permission/);
    expect(hiddenField(html, 'request')).toBe(opened.request);
    expect(await codeCount(opened.client.client_id)).toBe(0);
    const ticked = await postDecision(
      {
        csrf: opened.csrf,
        request: opened.request,
        workspace: fx.user.workspaceId,
        decision: 'allow',
        scope: 'agent:read',
      },
      { cookie: fx.user.cookie },
    );
    expect(ticked.status).toBe(303);
    expect(await codeCount(opened.client.client_id)).toBe(1);
  });

  it('a re-authorization asking for more lists every permission ticked and marks the ones not allowed before', async () => {
    const c = await registerClient(fx.server, {}, freshAddress());
    await authorizeCode(fx.server, fx.user, {
      clientId: c.client_id,
      challenge: pkce().challenge,
      scope: 'searches:read',
    });
    const res = await browserGet(
      authorizeUrl(fx.server, {
        clientId: c.client_id,
        challenge: pkce().challenge,
        scope: 'searches:read searches:write',
      }),
      fx.user.cookie,
    );
    const html = await res.text();
    expect(tickedScopes(html)).toEqual(['searches:read', 'searches:write']);
    expect(html.match(/\(new: not allowed to this app before\)/g)).toHaveLength(1);
    expect(html).toMatch(/searches:write<\/code>\s*<strong> \(new/);
  });

  it('says which requested permissions a team role leaves out, and that a team admin can grant them', async () => {
    const member = await signedInUser(fx.server);
    const team = await addTeamWorkspace(member, 'Read Only Team');
    await fx.server.sql.run(
      'UPDATE workspace_members SET role = ?, max_scopes = ? WHERE workspace_id = ? AND user_id = ?',
      'member',
      'searches:read agent:read',
      team,
      member.userId,
    );
    const { html } = await openConsent(member);
    expect(html).toMatch(/In Read Only Team, your team role does not include:/);
    expect(html).toContain(SCOPE_DESCRIPTIONS['searches:write']);
    expect(html).toMatch(/a team admin can grant them/);
  });
});
