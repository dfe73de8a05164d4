import { afterAll, beforeAll } from 'vitest';
import { freshAddress, registerClient, type SignedInUser, signedInUser } from './oauth-http.js';
import { startTestServer, type TestServer, type TestServerOptions } from './server.js';

/** What the OAuth tests share: read its fields inside tests and hooks (they are set by beforeAll). */
export interface OAuthFixture {
  readonly server: TestServer;
  /** A signed-in person with linked upstream credentials. */
  readonly user: SignedInUser;
  /** A registered public client (only with `{ client: true }`). */
  readonly clientId: string;
}

/**
 * The OAuth tests' one set-up, and that of others needing a server and a signed-in person
 * (housekeeping): a real server on the run's engine (TEST_ENGINE, or `server.engine`) that trusts
 * X-Forwarded-For, so each registration can come from its own address (freshAddress) under the
 * per-IP limit; a signed-in person; optionally a registered client. Registers the file's beforeAll
 * and afterAll; call it at the top level of a test file.
 */
export function oauthFixture(options: { client?: boolean; server?: TestServerOptions } = {}): OAuthFixture {
  let server: TestServer | undefined;
  let user: SignedInUser | undefined;
  let clientId: string | undefined;
  beforeAll(async () => {
    server = await startTestServer({
      ...options.server,
      env: { TRUST_PROXY: 'true', ...options.server?.env },
    });
    user = await signedInUser(server);
    if (options.client) clientId = (await registerClient(server, {}, freshAddress())).client_id;
  });
  afterAll(async () => {
    await server?.close();
  });
  const ready = <T>(value: T | undefined, name: string): T => {
    if (value === undefined) throw new Error(`oauthFixture: ${name} is read before beforeAll ran`);
    return value;
  };
  return {
    get server() {
      return ready(server, 'server');
    },
    get user() {
      return ready(user, 'user');
    },
    get clientId() {
      return ready(clientId, 'clientId (pass { client: true })');
    },
  };
}
