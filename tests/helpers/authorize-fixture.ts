import { afterAll, beforeAll, expect } from 'vitest';
import {
  authorizeCode,
  callbackParams,
  pkce,
  registerClient,
  type SignedInUser,
  signedInUser,
} from './oauth-http.js';
import { startTestServer, type TestServer } from './server.js';

/** The /authorize tests' world: a server, a signed-in person, and a client they have connected before. */
export interface AuthorizeFixture {
  server: TestServer;
  user: SignedInUser;
  /** Registered with http://localhost:3000/callback and https://app.example.com/cb. */
  clientId: string;
}

/** Starts the fixture before the file's tests and stops it after them. */
export function authorizeFixture(): AuthorizeFixture {
  const fx = {} as AuthorizeFixture;
  beforeAll(async () => {
    fx.server = await startTestServer();
    fx.user = await signedInUser(fx.server);
    fx.clientId = (
      await registerClient(fx.server, {
        redirect_uris: ['http://localhost:3000/callback', 'https://app.example.com/cb'],
      })
    ).client_id;
    // The person has connected this client before, so its errors may go back to it (RFC 9700 §4.11.2).
    await authorizeCode(fx.server, fx.user, { clientId: fx.clientId, challenge: pkce().challenge });
  });
  afterAll(async () => {
    await fx.server?.close();
  });
  return fx;
}

/** An error page shown to the person: HTML 400 and no redirect. */
export async function expectShown(res: Response, message: RegExp) {
  expect(res.status).toBe(400);
  expect(res.headers.get('location')).toBeNull();
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(await res.text()).toMatch(message);
}

/** An error sent back to the client: 302 (never 307) with error, state and iss (RFC 9207 §2). */
export function expectRedirectedError(server: TestServer, res: Response, error: string, state = 'state-123') {
  expect(res.status).toBe(302);
  const location = res.headers.get('location') ?? '';
  expect(location.startsWith('http://localhost:3000/callback?')).toBe(true);
  const params = callbackParams(res);
  expect(params.get('error')).toBe(error);
  expect(params.get('state')).toBe(state);
  expect(params.get('iss')).toBe(server.config.publicUrl);
  expect(params.get('code')).toBeNull();
}
