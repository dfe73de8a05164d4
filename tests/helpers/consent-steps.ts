import type { OAuthFixture } from './oauth-fixture.js';
import {
  authorizeUrl,
  browserGet,
  freshAddress,
  hiddenField,
  pkce,
  registerClient,
  type SignedInUser,
} from './oauth-http.js';

/**
 * The consent tests' steps on an OAuth fixture's server (tests/oauth/consent-*.test.ts): counting
 * codes and remembered consents, a second workspace with a credential, opening the consent page
 * without deciding, and posting a decision as a browser does.
 */
export function consentSteps(fx: OAuthFixture) {
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

  return { codeCount, consentCount, addTeamWorkspace, openConsent, postDecision };
}
