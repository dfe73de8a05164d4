import { join } from 'node:path';
import { asc } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { keyId } from '../../src/config.js';
import {
  type OpenStore,
  openMigratedStore,
  openPostgresStore,
  type Store,
} from '../../src/db/store/index.js';
import { SecretBox } from '../../src/security/secrets.js';
import { lines, runCli } from '../helpers/cli.js';
import { freshPostgresDatabase, type TestDatabase } from '../helpers/postgres.js';
import { TEST_SECRET_KEY, tempDir } from '../helpers/temp.js';

const NOW = 1_790_000_000_000;
const AUDIT_ROWS = 2_345; // more than two of the copy's 1,000-row pages
const key = Buffer.from(TEST_SECRET_KEY, 'hex');
const secrets = new SecretBox([{ id: keyId(key), key }]);

/** A SQLite database with rows in every table, written through the store. */
async function populate(db: Store): Promise<void> {
  const t = db.t;
  await db.orm.insert(t.users).values(
    ['ada', 'bob', 'cy'].map((id) => ({
      id,
      email: `${id}@example.com`,
      passwordHash: `$argon2id$${id}`,
      createdAt: NOW,
      updatedAt: NOW + 1,
      disabledAt: id === 'cy' ? NOW + 2 : null,
    })),
  );
  await db.orm.insert(t.workspaces).values([
    { id: 'w-ada', name: 'Personal', kind: 'personal', createdAt: NOW, updatedAt: NOW },
    {
      id: 'w-team',
      name: 'Team “Ünïcode”',
      kind: 'team',
      membersReadTeamWork: false,
      createdAt: NOW,
      updatedAt: NOW,
    },
  ]);
  await db.orm.insert(t.workspaceMembers).values([
    { workspaceId: 'w-ada', userId: 'ada', role: 'owner', createdAt: NOW },
    { workspaceId: 'w-team', userId: 'ada', role: 'owner', createdAt: NOW },
    {
      workspaceId: 'w-team',
      userId: 'bob',
      role: 'member',
      upstreamUserId: 'bob-upstream',
      maxScopes: 'searches:read',
      monthlyWriteCap: 5,
      canChangeWebhook: true,
      createdAt: NOW,
    },
  ]);
  await db.orm.insert(t.upstreamCredentials).values(
    ['w-ada', 'w-team'].map((workspaceId) => ({
      workspaceId,
      tokenCiphertext: secrets.seal(`upstream-token-of-${workspaceId}`, workspaceId),
      keyId: secrets.currentKeyId,
      tokenLast4: `f-${workspaceId.slice(-2)}`,
      upstreamUserId: 'ada-upstream',
      linkedBy: 'ada',
      verifiedAt: NOW,
      createdAt: NOW,
      updatedAt: NOW,
    })),
  );
  await db.orm.insert(t.invites).values({
    id: 'inv',
    workspaceId: 'w-team',
    tokenHash: 'invite-hash',
    role: 'member',
    maxUses: 3,
    uses: 1,
    expiresAt: NOW + 1000,
    createdBy: 'ada',
    createdAt: NOW,
  });
  await db.orm.insert(t.sessions).values({
    idHash: 'session-hash',
    userId: 'ada',
    createdAt: NOW,
    lastSeenAt: NOW,
    expiresAt: NOW + 9,
    userAgent: null,
  });
  await db.orm.insert(t.oauthClients).values({
    id: 'sim_client_1',
    kind: 'dcr',
    tokenEndpointAuthMethod: 'none',
    clientName: 'Claude',
    redirectUris: '["https://claude.ai/api/mcp/auth_callback"]',
    grantTypes: '["authorization_code","refresh_token"]',
    responseTypes: '["code"]',
    applicationType: 'web',
    metadata: '{}',
    createdAt: NOW,
    lastUsedAt: NOW,
    expiresAt: null,
  });
  await db.orm.insert(t.oauthGrants).values({
    id: 'grant',
    userId: 'ada',
    workspaceId: 'w-team',
    clientId: 'sim_client_1',
    scopes: 'searches:read searches:write',
    resource: 'http://localhost/mcp',
    createdAt: NOW,
  });
  await db.orm.insert(t.oauthCodes).values({
    codeHash: 'code-hash',
    clientId: 'sim_client_1',
    userId: 'ada',
    workspaceId: 'w-team',
    redirectUri: 'https://claude.ai/api/mcp/auth_callback',
    codeChallenge: 'challenge',
    scopes: 'searches:read',
    resource: 'http://localhost/mcp',
    createdAt: NOW,
    expiresAt: NOW + 60_000,
    usedAt: NOW + 5,
    grantId: 'grant',
    familyId: 'family',
    redirectUriSent: false,
  });
  await db.orm.insert(t.oauthTokens).values([
    {
      tokenHash: 'access-hash',
      grantId: 'grant',
      familyId: 'family',
      kind: 'access',
      scopes: 'searches:read',
      createdAt: NOW,
      expiresAt: NOW + 3_600_000,
    },
    {
      tokenHash: 'refresh-hash',
      grantId: 'grant',
      familyId: 'family',
      kind: 'refresh',
      createdAt: NOW,
      expiresAt: NOW + 9,
      rotatedAt: NOW + 1,
      graceUsedAt: NOW + 2,
    },
  ]);
  await db.orm.insert(t.consents).values({
    userId: 'ada',
    clientId: 'sim_client_1',
    workspaceId: 'w-team',
    scopes: 'searches:read',
    createdAt: NOW,
    updatedAt: NOW,
  });
  await db.orm.insert(t.oauthDecisions).values([
    { id: 'decision-1', userId: 'ada', answerSealed: 'v1.sealed', createdAt: NOW, expiresAt: NOW + 60_000 },
    { id: 'decision-2', userId: 'ada', answerSealed: null, createdAt: NOW, expiresAt: NOW + 60_000 },
  ]);
  await db.orm.insert(t.itemCreators).values([
    {
      workspaceId: 'w-team',
      kind: 'keyword_search',
      itemId: '42',
      userId: 'bob',
      upstreamUserId: 'bob-upstream',
      createdAt: NOW,
    },
    {
      workspaceId: 'w-team',
      kind: 'schedule',
      itemId: 'b2c1',
      userId: 'ada',
      upstreamUserId: 'ada-upstream',
      createdAt: NOW,
    },
  ]);
  await db.orm
    .insert(t.writeReservations)
    .values({ workspaceId: 'w-team', userId: 'bob', tool: 'submit_keyword_search', createdAt: NOW });
  await db.orm.insert(t.rateLimitHits).values([
    { key: 'hmac-of-a-limit-and-an-email', windowStart: NOW - 60_000, hits: 3, expiresAt: NOW + 60_000 },
    { key: 'hmac-of-a-limit-and-an-email', windowStart: NOW, hits: 1, expiresAt: NOW + 120_000 },
  ]);
  await db.orm.insert(t.waitingCalls).values({
    id: 'call-1',
    instanceId: 'instance-a',
    grantId: 'g-1',
    requestKey: 'number:7',
    createdAt: NOW,
    expiresAt: NOW + 600_000,
  });
  await db.orm.insert(t.recentSubmits).values({
    keyHash: 'sha256-of-a-credential-tool-and-arguments',
    kind: 'keyword_search',
    jobId: '42',
    holder: null,
    createdAt: NOW,
    seenRunningAt: NOW,
    finishedAt: null,
    expiresAt: NOW + 600_000,
  });
  await db.orm.insert(t.tasks).values({
    id: 'sha256-of-a-task-id',
    ownerUserId: 'bob',
    ownerClientId: 'client-1',
    ownerWorkspaceId: 'w-team',
    tool: 'submit_keyword_search',
    args: '{"query":"heat pumps"}',
    jobKind: 'keyword_search',
    jobId: '42',
    reusedAgeMs: null,
    status: 'completed',
    statusMessage: 'Done: keyword search 42.',
    createdAt: NOW,
    updatedAt: NOW,
    nextPollAt: null,
    result: '{"content":[],"resultType":"complete"}',
    leaseOwner: null,
    leaseUntil: 0,
    expiresAt: NOW + 86_400_000,
  });
  for (let start = 0; start < AUDIT_ROWS; start += 500) {
    await db.orm.insert(t.auditEvents).values(
      Array.from({ length: Math.min(500, AUDIT_ROWS - start) }, (_, i) => ({
        at: NOW + start + i,
        kind: 'tool_call',
        workspaceId: 'w-team',
        userId: 'bob',
        tool: 'get_keyword_search',
        status: 'ok',
        durationMs: i,
        detail: '{"n":1}',
      })),
    );
  }
}

/** Every table's rows, in primary-key order, through either engine's store. */
async function everyRow(db: Store): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const name of (Object.keys(db.t) as Array<keyof Store['t']>).sort()) {
    const table = db.t[name];
    // Ordered by every column: one total order on both engines (the test cluster collates bytewise).
    const columns = Object.values(table).filter((c) => typeof c === 'object' && c !== null && 'primary' in c);
    out[name] = await db.orm
      .select()
      .from(table)
      .orderBy(...columns.map((c) => asc(c as never)));
  }
  return out;
}

describe('copy-to-postgres', () => {
  const dir = tempDir('sim-copy-');
  const databasePath = join(dir.path, 'source.db');
  let source: OpenStore;
  const targets: TestDatabase[] = [];
  const target = async () => {
    const database = await freshPostgresDatabase();
    targets.push(database);
    return database;
  };
  const env = (url: string | undefined, secretKey = TEST_SECRET_KEY) => ({
    DATABASE_PATH: databasePath,
    SECRET_KEY: secretKey,
    ...(url ? { DATABASE_URL: url } : {}),
  });

  beforeAll(async () => {
    source = (await openMigratedStore({ databasePath })).store;
    await populate(source);
  });
  afterEach(async () => {
    for (const database of targets.splice(0)) await database.drop();
  });
  afterAll(async () => {
    await source.close();
    dir.remove();
  });

  it('copies every row of every table, ids and credentials included, and refuses to copy twice', async () => {
    const database = await target();
    const run = await runCli(['copy-to-postgres'], env(database.url));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(lines(run.stdout)).toEqual(
      expect.arrayContaining([
        'users: 3',
        'workspace_members: 3',
        `audit_events: ${AUDIT_ROWS}`,
        'upstream credentials opened with the configured key: 2',
      ]),
    );
    expect(run.stdout).not.toContain(database.url);

    const pg = openPostgresStore(database.url);
    try {
      const copied = await everyRow(pg);
      const original = await everyRow(source);
      // Every table of the schema has rows in the fixture, so none is skipped unnoticed.
      for (const [table, rows] of Object.entries(original)) expect(rows.length, table).toBeGreaterThan(0);
      expect(copied).toEqual(original);
      // The copied envelopes open with the server's key, bound to their workspace.
      const credentials = await pg.orm.select().from(pg.t.upstreamCredentials);
      expect(credentials.map((c) => secrets.open(c.tokenCiphertext, c.workspaceId)).sort()).toEqual([
        'upstream-token-of-w-ada',
        'upstream-token-of-w-team',
      ]);
      // New audit events are numbered after the copied ones.
      const [next] = await pg.orm.insert(pg.t.auditEvents).values({ at: NOW, kind: 'x' }).returning();
      expect(next?.id).toBe(AUDIT_ROWS + 1);
    } finally {
      await pg.close();
    }

    const again = await runCli(['copy-to-postgres'], env(database.url));
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      /^social-intel-mcp: the PostgreSQL database already holds rows in .*users \(3\).*nothing was copied\n$/,
    );
  });

  it('commits nothing when a credential does not open with the configured key', async () => {
    const database = await target();
    const run = await runCli(['copy-to-postgres'], env(database.url, 'b'.repeat(64)));
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'social-intel-mcp: 2 upstream credentials (workspace w-ada, w-team) could not be opened with SECRET_KEY or SECRET_KEY_PREVIOUS; set the key the server uses; nothing was copied\n',
    );
    const pg = openPostgresStore(database.url);
    try {
      for (const rows of Object.values(await everyRow(pg))) expect(rows).toEqual([]);
    } finally {
      await pg.close();
    }
  });

  it('says what is missing: DATABASE_URL, or the SQLite file', async () => {
    const noUrl = await runCli(['copy-to-postgres'], env(undefined));
    expect(noUrl.code).toBe(1);
    expect(noUrl.stderr).toMatch(
      /^social-intel-mcp: copy-to-postgres needs DATABASE_URL set to the empty PostgreSQL database/,
    );
    const database = await target();
    const noFile = await runCli(['copy-to-postgres'], {
      ...env(database.url),
      DATABASE_PATH: join(dir.path, 'missing.db'),
    });
    expect(noFile.code).toBe(1);
    expect(noFile.stderr).toMatch(
      /^social-intel-mcp: there is no SQLite database at .*missing\.db \(DATABASE_PATH\) to copy from\n$/,
    );
  });
});
