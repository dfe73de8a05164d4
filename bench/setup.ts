/**
 * Writes the bench's users, linked upstream credentials, OAuth client and grants straight into the
 * database (the SQLite file or PostgreSQL), with the same functions the pages and the token endpoint use, before the gateway
 * starts (tests/helpers/grants.ts does the same for tests).
 */
import { saveUpstreamCredential } from '../src/accounts/credentials.js';
import { createUser } from '../src/accounts/users.js';
import { loadConfig } from '../src/config.js';
import { openMigratedStore, type Store, type StoreLocation } from '../src/db/store/index.js';
import { clientMetadataSchema } from '../src/oauth/clients/metadata-schema.js';
import { registerDynamicClient } from '../src/oauth/clients/repository.js';
import { claimCode, createAuthorizationCode, findCode } from '../src/oauth/codes.js';
import { issueGrantForCode } from '../src/oauth/grants.js';
import { SCOPES } from '../src/oauth/scopes.js';
import { SecretBox } from '../src/security/secrets.js';
import { PUBLIC_URL, SECRET_KEY } from './servers.js';

export interface BenchGrant {
  accessToken: string;
  refreshToken: string;
  upstreamToken: string;
}

export interface BenchData {
  clientId: string;
  /** One grant per upstream credential given, in order. */
  grants: BenchGrant[];
  /** Grants whose refresh tokens the token-endpoint figure consumes (one chain per connection). */
  refreshPool: string[];
}

const ACCESS_TTL_MS = 3600 * 1000;

async function grantFor(db: Store, secrets: SecretBox, n: number, upstreamToken: string | null) {
  const created = await createUser(db, {
    email: `bench-${n}@example.com`,
    password: 'correct horse battery staple',
  });
  if (!created.ok) throw new Error(`bench user: ${created.reason}`);
  if (upstreamToken) {
    await saveUpstreamCredential(db, secrets, {
      workspaceId: created.personalWorkspaceId,
      linkedBy: created.user.id,
      token: upstreamToken,
      upstreamUserId: `bench-user-${n}`,
      verifiedAt: Date.now(),
    });
  }
  return { userId: created.user.id, workspaceId: created.personalWorkspaceId };
}

async function mint(db: Store, clientId: string, who: { userId: string; workspaceId: string }) {
  const code = await createAuthorizationCode(db, {
    clientId,
    ...who,
    redirectUri: 'http://127.0.0.1/callback',
    codeChallenge: 'x'.repeat(43),
    scopes: SCOPES,
    resource: `${PUBLIC_URL}/mcp`,
  });
  const row = await findCode(db, code);
  if (!row || !(await claimCode(db, row.codeHash))) throw new Error('could not claim a bench code');
  return await issueGrantForCode(db, row, ACCESS_TTL_MS);
}

export async function setupDatabase(
  /** The SQLite file's path, or where the database is (DATABASE_URL for PostgreSQL). */
  location: string | StoreLocation,
  upstreamTokens: string[],
  refreshPoolSize: number,
): Promise<BenchData> {
  const where = typeof location === 'string' ? { databasePath: location } : location;
  const config = loadConfig({
    DATABASE_PATH: where.databasePath,
    SECRET_KEY,
    PUBLIC_URL,
    LOG_LEVEL: 'silent',
  });
  const secrets = new SecretBox(config.secretKeys);
  const { store: db } = await openMigratedStore(where);
  try {
    const { client } = await registerDynamicClient(
      db,
      clientMetadataSchema.parse({
        client_name: 'Bench client',
        redirect_uris: ['http://127.0.0.1/callback'],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
      }),
    );
    const clientId = client.clientId;
    const grants: BenchGrant[] = [];
    for (const [i, upstreamToken] of upstreamTokens.entries()) {
      const who = await grantFor(db, secrets, i, upstreamToken);
      const t = await mint(db, clientId, who);
      grants.push({ accessToken: t.access_token, refreshToken: t.refresh_token, upstreamToken });
    }
    const poolOwner = await grantFor(db, secrets, upstreamTokens.length, null);
    const refreshPool: string[] = [];
    for (let i = 0; i < refreshPoolSize; i++)
      refreshPool.push((await mint(db, clientId, poolOwner)).refresh_token);
    return { clientId, grants, refreshPool };
  } finally {
    await db.close();
  }
}
