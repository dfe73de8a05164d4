import { hkdfSync } from 'node:crypto';
import { decodeJwt, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { SCOPE_DESCRIPTIONS, SCOPES } from '../../src/oauth/scopes.js';
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
  type SignedInUser,
  signedInUser,
  tickedScopes,
  workspaceOptions,
} from '../helpers/oauth-http.js';

const fx = oauthFixture();

async function codeCount(clientId: string): Promise<number> {
  const row = (await fx.server.sql.get(
    'SELECT count(*) AS n FROM oauth_codes WHERE client_id = ?',
    clientId,
  )) as {
    n: number;
  };
  return row.n;
}

async function consentCount(userId: string, clientId: string): Promise<number> {
  const row = (await fx.server.sql.get(
    'SELECT count(*) AS n FROM consents WHERE user_id = ? AND client_id = ?',
    userId,
    clientId,
  )) as { n: number };
  return row.n;
}

/** A team workspace with its own credential, the user a member of it. */
async function addTeamWorkspace(member: SignedInUser, name: string): Promise<string> {
  const id = crypto.randomUUID();
  const now = Date.now();
  await fx.server.sql.run(
    'INSERT INTO workspaces (id, name, kind, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
    id,
    name,
    'team',
    now,
    now,
  );
  await fx.server.sql.run(
    'INSERT INTO workspace_members (workspace_id, user_id, role, created_at) VALUES (?, ?, ?, ?)',
    id,
    member.userId,
    'owner',
    now,
  );
  await fx.server.sql.run(
    `INSERT INTO upstream_credentials (workspace_id, token_ciphertext, key_id, token_last4, upstream_user_id, linked_by, verified_at, created_at, updated_at)
     SELECT ?, token_ciphertext, key_id, token_last4, upstream_user_id, linked_by, verified_at, created_at, updated_at
     FROM upstream_credentials WHERE workspace_id = ?`,
    id,
    member.workspaceId,
  );
  return id;
}

/** Opens the consent page for a new client and returns its fields, without deciding. */
async function openConsent(
  who: SignedInUser,
  metadata: Record<string, unknown> = {},
  scope: string | null = null,
) {
  const client = await registerClient(fx.server, metadata, freshAddress());
  const redirectUri = (metadata.redirect_uris as string[] | undefined)?.[0];
  const p = pkce();
  const url = authorizeUrl(fx.server, {
    clientId: client.client_id,
    challenge: p.challenge,
    scope,
    ...(redirectUri ? { redirectUri } : {}),
  });
  const page = await browserGet(url, who.cookie);
  const html = await page.text();
  return {
    client,
    page,
    html,
    url,
    verifier: p.verifier,
    request: hiddenField(html, 'request') ?? '',
    csrf: hiddenField(html, 'csrf') ?? '',
  };
}

function postDecision(
  fields: Record<string, string>,
  options: { cookie?: string; origin?: string; site?: string } = {},
): Promise<Response> {
  return fetch(`${fx.server.url}/authorize/decision`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      ...(options.cookie ? { cookie: options.cookie } : {}),
      'content-type': 'application/x-www-form-urlencoded',
      origin: options.origin ?? new URL(fx.server.url).origin,
      'sec-fetch-site': options.site ?? 'same-origin',
    },
    body: new URLSearchParams(fields),
  });
}

describe('the consent page (DESIGN §4, §6)', () => {
  it('DESIGN §4: shows the client name, the redirect host and, for DCR clients, an unverified-name warning', async () => {
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

  it('DESIGN §4: warns when the client redirects only to loopback (RFC 8252 §8.6: impersonation risk)', async () => {
    const { html } = await openConsent(fx.user, { redirect_uris: ['http://127.0.0.1:3000/cb'] });
    expect(html).toMatch(/runs on your own computer/);
    expect(html).toContain('127.0.0.1:3000');
  });

  it('DESIGN §4: scopes in plain language; the write scopes say they spend credits', async () => {
    const { html } = await openConsent(fx.user);
    for (const scope of SCOPES) {
      expect(html).toContain(SCOPE_DESCRIPTIONS[scope]);
      expect(html).toContain(scope);
    }
    expect(SCOPE_DESCRIPTIONS['searches:write']).toMatch(/credits/);
    expect(SCOPE_DESCRIPTIONS['agent:write']).toMatch(/credits/);
  });

  it('DESIGN §4: only the requested scopes are listed', async () => {
    const { html } = await openConsent(fx.user, {}, 'agent:read');
    expect(html).toContain(SCOPE_DESCRIPTIONS['agent:read']);
    expect(html).not.toContain(SCOPE_DESCRIPTIONS['searches:write']);
  });

  it('DESIGN §6: a workspace picker labelled "Workspace" and buttons "Allow" and "Deny"', async () => {
    const { html } = await openConsent(fx.user);
    expect(html).toMatch(/<label for="consent-workspace">Workspace<\/label>/);
    expect(html).toMatch(/<select id="consent-workspace" name="workspace"/);
    expect(workspaceOptions(html)).toContain(fx.user.workspaceId);
    expect(html).toMatch(/<button[^>]*value="allow"[^>]*>\s*Allow\s*<\/button>/);
    expect(html).toMatch(/<button[^>]*value="deny"[^>]*>\s*Deny\s*<\/button>/);
  });

  it("DESIGN §4: CSP has frame-ancestors 'none' and a form-action allowing the redirect origin", async () => {
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

  it('DESIGN §4: session and CSRF cookies are __Host-, Secure, HttpOnly, SameSite=Lax, Path=/', async () => {
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

  it('DESIGN §4: a workspace the user does not belong to is refused, nothing issued', async () => {
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

describe('remembered consent per (user, client, workspace) (DESIGN §4)', () => {
  it('DESIGN §4: a second authorize redirects straight back with a code that works', async () => {
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

  it('DESIGN §4: consent is per user: another user of the same client is asked', async () => {
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

  it('DESIGN §4: consent is per client: another client of the same user is asked', async () => {
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

  it('DESIGN §4: consent is per workspace: the remembered code is for the workspace chosen', async () => {
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

  it('DESIGN §4: asked again when the scopes grow, not when they shrink', async () => {
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

describe('a tampered or replayed decision is refused and nothing is issued (DESIGN §4, RFC 6749 §10.12)', () => {
  function signingKey() {
    const secret = fx.server.config.secretKeys[0]?.key;
    if (!secret) throw new Error('no SECRET_KEY');
    return new Uint8Array(
      hkdfSync('sha256', secret, Buffer.alloc(0), 'social-intel-mcp pending-authorization v1', 32),
    );
  }

  it('RFC 6749 §10.12: a forged request (payload changed, signature kept) → refused', async () => {
    const opened = await openConsent(fx.user);
    const [header, payload, signature] = opened.request.split('.');
    const claims = decodeJwt(opened.request) as { req: { redirectUri: string } };
    claims.req.redirectUri = 'https://evil.example/cb';
    const forgedPayload = Buffer.from(JSON.stringify(claims)).toString('base64url');
    expect(forgedPayload).not.toBe(payload);
    const res = await postDecision(
      {
        csrf: opened.csrf,
        request: `${header}.${forgedPayload}.${signature}`,
        workspace: fx.user.workspaceId,
        decision: 'allow',
      },
      { cookie: fx.user.cookie },
    );
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await codeCount(opened.client.client_id)).toBe(0);
  });

  it('RFC 6749 §10.12: a request signed with another key → refused', async () => {
    const opened = await openConsent(fx.user);
    const claims = decodeJwt(opened.request);
    const forged = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new Uint8Array(32).fill(7));
    const res = await postDecision(
      { csrf: opened.csrf, request: forged, workspace: fx.user.workspaceId, decision: 'allow' },
      { cookie: fx.user.cookie },
    );
    expect(res.status).toBe(400);
    expect(await codeCount(opened.client.client_id)).toBe(0);
  });

  it('DESIGN §4: an expired request → refused', async () => {
    const opened = await openConsent(fx.user);
    const claims = decodeJwt(opened.request);
    const past = Math.floor(Date.now() / 1000) - 3600;
    const expired = await new SignJWT({ req: claims.req })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(fx.server.config.publicUrl)
      .setAudience(claims.aud as string)
      .setIssuedAt(past - 900)
      .setExpirationTime(past)
      .sign(signingKey());
    // The same construction with a live expiry is accepted, so the refusal is about the expiry.
    const live = await new SignJWT({ req: claims.req })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(fx.server.config.publicUrl)
      .setAudience(claims.aud as string)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(signingKey());
    const refused = await postDecision(
      { csrf: opened.csrf, request: expired, workspace: fx.user.workspaceId, decision: 'allow' },
      { cookie: fx.user.cookie },
    );
    expect(refused.status).toBe(400);
    expect(await codeCount(opened.client.client_id)).toBe(0);
    const accepted = await postDecision(
      {
        csrf: opened.csrf,
        request: live,
        workspace: fx.user.workspaceId,
        decision: 'allow',
        scope: 'searches:read',
      },
      { cookie: fx.user.cookie },
    );
    expect(accepted.status).toBe(303);
    expect(await codeCount(opened.client.client_id)).toBe(1);
  });

  it('DESIGN §4 (CSRF): a missing csrf field → 403, nothing issued', async () => {
    const opened = await openConsent(fx.user);
    const res = await postDecision(
      { request: opened.request, workspace: fx.user.workspaceId, decision: 'allow' },
      { cookie: fx.user.cookie },
    );
    expect(res.status).toBe(403);
    expect(res.headers.get('location')).toBeNull();
    expect(await codeCount(opened.client.client_id)).toBe(0);
  });

  it('DESIGN §4 (CSRF): a wrong csrf field → 403, nothing issued', async () => {
    const opened = await openConsent(fx.user);
    const other = await openConsent(await signedInUser(fx.server));
    const res = await postDecision(
      { csrf: other.csrf, request: opened.request, workspace: fx.user.workspaceId, decision: 'allow' },
      { cookie: fx.user.cookie },
    );
    expect(res.status).toBe(403);
    expect(await codeCount(opened.client.client_id)).toBe(0);
  });

  it('DESIGN §4 (CSRF): a cross-site POST (foreign Origin) → 403, nothing issued', async () => {
    const opened = await openConsent(fx.user);
    const res = await postDecision(
      { csrf: opened.csrf, request: opened.request, workspace: fx.user.workspaceId, decision: 'allow' },
      { cookie: fx.user.cookie, origin: 'https://evil.example', site: 'cross-site' },
    );
    expect(res.status).toBe(403);
    expect(res.headers.get('location')).toBeNull();
    expect(await codeCount(opened.client.client_id)).toBe(0);
  });

  it('DESIGN §4: a request signed for another user → refused, nothing issued', async () => {
    const victim = await signedInUser(fx.server);
    const attacker = await signedInUser(fx.server);
    const victimPage = await openConsent(victim);
    // The attacker's own csrf token, so only the request's binding to the user is being tested.
    const attackerPage = await openConsent(attacker);
    const res = await postDecision(
      {
        csrf: attackerPage.csrf,
        request: victimPage.request,
        workspace: attacker.workspaceId,
        decision: 'allow',
      },
      { cookie: attacker.cookie },
    );
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await codeCount(victimPage.client.client_id)).toBe(0);
  });

  it('DESIGN §4: a signed-out decision → refused, nothing issued', async () => {
    const opened = await openConsent(fx.user);
    const res = await postDecision({
      csrf: opened.csrf,
      request: opened.request,
      workspace: fx.user.workspaceId,
      decision: 'allow',
    });
    expect([400, 403]).toContain(res.status);
    expect(res.headers.get('location')).toBeNull();
    expect(await codeCount(opened.client.client_id)).toBe(0);
  });
});

describe('Consent form replay: one-use id, one code', () => {
  /** The same browser form posted as it was (a double click, a replay). */
  function repost(opened: Awaited<ReturnType<typeof openConsent>>, decision: 'allow' | 'deny' = 'allow') {
    return postDecision(
      {
        csrf: opened.csrf,
        request: opened.request,
        workspace: fx.user.workspaceId,
        decision,
        scope: 'searches:read',
      },
      { cookie: fx.user.cookie },
    );
  }

  it('posting the same decision three times yields one code, and the same redirect each time', async () => {
    const opened = await openConsent(fx.user);
    const answers = [await repost(opened), await repost(opened), await repost(opened)];
    expect(answers.map((r) => r.status)).toEqual([303, 303, 303]);
    expect(await codeCount(opened.client.client_id)).toBe(1);
    const locations = new Set(answers.map((r) => r.headers.get('location')));
    expect(locations.size).toBe(1);
    const code = callbackParams(answers[0] as Response).get('code') as string;
    const tokens = await exchangeCode(fx.server, {
      clientId: opened.client.client_id,
      code,
      verifier: opened.verifier,
    });
    expect(tokens.status).toBe(200);
  });

  it('the same form posted ten times at once still yields one code', async () => {
    const opened = await openConsent(fx.user);
    const answers = await Promise.all(Array.from({ length: 10 }, () => repost(opened)));
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(303));
    expect(new Set(answers.map((r) => r.headers.get('location'))).size).toBe(1);
    expect(await codeCount(opened.client.client_id)).toBe(1);
  });

  it('a Deny posted again answers the same refusal; an Allow posted after it changes nothing', async () => {
    const opened = await openConsent(fx.user);
    const denied = await repost(opened, 'deny');
    const again = await repost(opened, 'deny');
    const allowAfter = await repost(opened, 'allow');
    expect(again.headers.get('location')).toBe(denied.headers.get('location'));
    expect(allowAfter.headers.get('location')).toBe(denied.headers.get('location'));
    expect(callbackParams(denied).get('error')).toBe('access_denied');
    expect(await codeCount(opened.client.client_id)).toBe(0);
  });

  it('once the code’s minute is over, the form posted again is told it was already answered', async () => {
    const opened = await openConsent(fx.user);
    expect((await repost(opened)).status).toBe(303);
    await fx.server.sql.run('UPDATE oauth_decisions SET created_at = created_at - 61000');
    const late = await repost(opened);
    expect(late.status).toBe(400);
    expect(late.headers.get('location')).toBeNull();
    expect(await late.text()).toMatch(/already answered/);
    expect(await codeCount(opened.client.client_id)).toBe(1);
  });

  it('the stored answer (it holds the code) is sealed, never in plain text', async () => {
    const opened = await openConsent(fx.user);
    const res = await repost(opened);
    const code = callbackParams(res).get('code') as string;
    const rows = (await fx.server.sql.all('SELECT answer_sealed FROM oauth_decisions')) as Array<{
      answer_sealed: string;
    }>;
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.answer_sealed).not.toContain(code);
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
