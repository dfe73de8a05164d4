import { hkdfSync } from 'node:crypto';
import { decodeJwt, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { consentSteps } from '../helpers/consent-steps.js';
import { oauthFixture } from '../helpers/oauth-fixture.js';
import { callbackParams, exchangeCode, signedInUser } from '../helpers/oauth-http.js';

/**
 * Decisions that must not issue anything: tampered, expired, cross-site, another user's or signed out
 * (RFC 6749 §10.12), and the same form posted again (one-use id, one code).
 */
const fx = oauthFixture();
const { codeCount, openConsent, postDecision } = consentSteps(fx);

describe('a tampered or replayed decision is refused and nothing is issued (RFC 6749 §10.12)', () => {
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

  it('an expired request → refused', async () => {
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

  it('CSRF: a missing csrf field → 403, nothing issued', async () => {
    const opened = await openConsent(fx.user);
    const res = await postDecision(
      { request: opened.request, workspace: fx.user.workspaceId, decision: 'allow' },
      { cookie: fx.user.cookie },
    );
    expect(res.status).toBe(403);
    expect(res.headers.get('location')).toBeNull();
    expect(await codeCount(opened.client.client_id)).toBe(0);
  });

  it('CSRF: a wrong csrf field → 403, nothing issued', async () => {
    const opened = await openConsent(fx.user);
    const other = await openConsent(await signedInUser(fx.server));
    const res = await postDecision(
      { csrf: other.csrf, request: opened.request, workspace: fx.user.workspaceId, decision: 'allow' },
      { cookie: fx.user.cookie },
    );
    expect(res.status).toBe(403);
    expect(await codeCount(opened.client.client_id)).toBe(0);
  });

  it('CSRF: a cross-site POST (foreign Origin) → 403, nothing issued', async () => {
    const opened = await openConsent(fx.user);
    const res = await postDecision(
      { csrf: opened.csrf, request: opened.request, workspace: fx.user.workspaceId, decision: 'allow' },
      { cookie: fx.user.cookie, origin: 'https://evil.example', site: 'cross-site' },
    );
    expect(res.status).toBe(403);
    expect(res.headers.get('location')).toBeNull();
    expect(await codeCount(opened.client.client_id)).toBe(0);
  });

  it('a request signed for another user → refused, nothing issued', async () => {
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

  it('a signed-out decision → refused, nothing issued', async () => {
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
