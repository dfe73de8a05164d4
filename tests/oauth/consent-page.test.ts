import { describe, expect, it } from 'vitest';
import { SCOPE_DESCRIPTIONS, SCOPES } from '../../src/oauth/scopes.js';
import { consentSteps } from '../helpers/consent-steps.js';
import { oauthFixture } from '../helpers/oauth-fixture.js';
import {
  authorizeUrl,
  browserGet,
  callbackParams,
  consent,
  freshAddress,
  pkce,
  registerClient,
  signedInUser,
  workspaceOptions,
} from '../helpers/oauth-http.js';

/**
 * The consent page (docs/oauth.md, Rules worth knowing; its labels: ARCHITECTURE.md, Rules the code keeps)
 * and the decision posted from it (RFC 6749 §4.1.2, RFC 9207): what the page shows and how it is served,
 * Allow and Deny.
 */
const fx = oauthFixture();
const { codeCount, consentCount, openConsent, postDecision } = consentSteps(fx);

describe('the consent page', () => {
  it('shows the client name, the redirect host and, for DCR clients, an unverified-name warning', async () => {
    const { page, html } = await openConsent(fx.user, {
      client_name: 'Acme <Assistant>',
      redirect_uris: ['https://app.example.com/cb'],
    });
    expect(page.status).toBe(200);
    expect(html).toContain('Acme &lt;Assistant&gt;');
    expect(html).not.toContain('Acme <Assistant>');
    expect(html).toContain('app.example.com');
    expect(html).toMatch(/has not been verified/);
    // An https client is not loopback-only: no "runs on your own computer" warning.
    expect(html).not.toMatch(/runs on your own computer/);
  });

  it('warns when the client redirects only to loopback (RFC 8252 §8.6: impersonation risk)', async () => {
    const { html } = await openConsent(fx.user, { redirect_uris: ['http://127.0.0.1:3000/cb'] });
    expect(html).toMatch(/runs on your own computer/);
    expect(html).toContain('127.0.0.1:3000');
  });

  it('scopes in plain language; the write scopes say they spend credits', async () => {
    const { html } = await openConsent(fx.user);
    for (const scope of SCOPES) {
      expect(html).toContain(SCOPE_DESCRIPTIONS[scope]);
      expect(html).toContain(scope);
    }
    expect(SCOPE_DESCRIPTIONS['searches:write']).toMatch(/credits/);
    expect(SCOPE_DESCRIPTIONS['agent:write']).toMatch(/credits/);
  });

  it('only the requested scopes are listed', async () => {
    const { html } = await openConsent(fx.user, {}, 'agent:read');
    expect(html).toContain(SCOPE_DESCRIPTIONS['agent:read']);
    expect(html).not.toContain(SCOPE_DESCRIPTIONS['searches:write']);
  });

  it('a workspace picker labelled "Workspace" and buttons "Allow" and "Deny"', async () => {
    const { html } = await openConsent(fx.user);
    expect(html).toMatch(/<label for="consent-workspace">Workspace<\/label>/);
    expect(html).toMatch(/<select id="consent-workspace" name="workspace"/);
    expect(workspaceOptions(html)).toContain(fx.user.workspaceId);
    expect(html).toMatch(/<button[^>]*value="allow"[^>]*>\s*Allow\s*<\/button>/);
    expect(html).toMatch(/<button[^>]*value="deny"[^>]*>\s*Deny\s*<\/button>/);
  });

  it("CSP has frame-ancestors 'none' and a form-action allowing the redirect origin", async () => {
    const web = await openConsent(fx.user, { redirect_uris: ['https://app.example.com/cb'] });
    const csp = web.page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toMatch(/form-action 'self' https:\/\/app\.example\.com(;|$)/);
    const loop = await openConsent(fx.user, { redirect_uris: ['http://localhost:3000/callback'] });
    expect(loop.page.headers.get('content-security-policy')).toMatch(
      /form-action 'self' http:\/\/localhost:3000(;|$)/,
    );
    expect(web.page.headers.get('x-frame-options')).toBe('DENY');
  });

  it('the consent page (CSRF token, signed request) is never cached', async () => {
    const web = await openConsent(fx.user, { redirect_uris: ['https://app.example.com/cb'] });
    expect(web.page.status).toBe(200);
    expect(web.page.headers.get('cache-control')).toBe('no-store');
  });

  it('session and CSRF cookies are __Host-, Secure, HttpOnly, SameSite=Lax, Path=/', async () => {
    const res = await browserGet(`${fx.server.url}/sign-in`);
    const cookies = res.headers.getSetCookie();
    const csrf = cookies.find((c) => c.startsWith('__Host-sim_csrf='));
    expect(csrf).toBeDefined();
    expect(csrf).toMatch(/;\s*Secure/i);
    expect(csrf).toMatch(/;\s*HttpOnly/i);
    expect(csrf).toMatch(/;\s*SameSite=Lax/i);
    expect(csrf).toMatch(/;\s*Path=\//i);
    expect(csrf).not.toMatch(/Domain=/i);
    expect(fx.user.cookie.startsWith('__Host-sim_session=')).toBe(true);
  });
});

describe('the decision (RFC 6749 §4.1.2, §4.1.2.1; RFC 9207)', () => {
  it('RFC 6749 §4.1.2 / RFC 9207 §2: Allow → 303 to the redirect URI with code, state and iss', async () => {
    const p = pkce();
    const c = await registerClient(fx.server, {}, freshAddress());
    const { decision } = await consent(
      fx.server,
      fx.user,
      authorizeUrl(fx.server, { clientId: c.client_id, challenge: p.challenge, state: 'st/≈ 1' }),
    );
    expect(decision?.status).toBe(303);
    const params = callbackParams(decision as Response);
    expect(params.get('code')).toMatch(/^sim_ac_/);
    expect(params.get('state')).toBe('st/≈ 1');
    expect(params.get('iss')).toBe(fx.server.config.publicUrl);
  });

  it('RFC 9700 §4.2.4: the redirect carrying the code has Referrer-Policy: no-referrer', async () => {
    const c = await registerClient(fx.server, {}, freshAddress());
    const { page, decision } = await consent(
      fx.server,
      fx.user,
      authorizeUrl(fx.server, { clientId: c.client_id, challenge: pkce().challenge }),
    );
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(decision?.headers.get('referrer-policy')).toBe('no-referrer');
    const remembered = await browserGet(
      authorizeUrl(fx.server, { clientId: c.client_id, challenge: pkce().challenge }),
      fx.user.cookie,
    );
    expect(callbackParams(remembered).get('code')).toBeTruthy();
    expect(remembered.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('RFC 6749 §4.1.2.1 / RFC 9207 §2: Deny → access_denied with state and iss, no code', async () => {
    const p = pkce();
    const c = await registerClient(fx.server, {}, freshAddress());
    const { decision } = await consent(
      fx.server,
      fx.user,
      authorizeUrl(fx.server, { clientId: c.client_id, challenge: p.challenge }),
      {
        decision: 'deny',
      },
    );
    expect(decision?.status).toBe(303);
    const params = callbackParams(decision as Response);
    expect(params.get('error')).toBe('access_denied');
    expect(params.get('state')).toBe('state-123');
    expect(params.get('iss')).toBe(fx.server.config.publicUrl);
    expect(params.get('code')).toBeNull();
    expect(await codeCount(c.client_id)).toBe(0);
    expect(await consentCount(fx.user.userId, c.client_id)).toBe(0);
  });

  it('a workspace the user does not belong to is refused, nothing issued', async () => {
    const other = await signedInUser(fx.server);
    const opened = await openConsent(fx.user);
    const res = await postDecision(
      { csrf: opened.csrf, request: opened.request, workspace: other.workspaceId, decision: 'allow' },
      { cookie: fx.user.cookie },
    );
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await codeCount(opened.client.client_id)).toBe(0);
  });
});
