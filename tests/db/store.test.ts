import { and, eq, isNull, sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  first,
  forUpdate,
  isUniqueViolation,
  TransactionEndedError,
  TransactionMisuseError,
} from '../../src/db/store/index.js';
import { ENGINES, migratedTestStore, type TestStore } from '../helpers/stores.js';
import { NOW, seedUser } from './seed.js';

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = error; e; e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

describe.each(ENGINES)('store on %s', (engine) => {
  let ctx: TestStore;
  beforeEach(async () => {
    ctx = await migratedTestStore(engine);
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  it('reads back what it writes, with joins, updates and ON DELETE cascade', async () => {
    const db = ctx.store;
    const { users, sessions, workspaceMembers, workspaces } = db.t;
    const { userId, workspaceId } = await seedUser(db, 'ada');
    await db.orm
      .insert(sessions)
      .values({ idHash: 's1', userId, createdAt: NOW, lastSeenAt: NOW, expiresAt: NOW + 1 });

    const row = await first(
      db.orm
        .select({
          email: users.email,
          role: workspaceMembers.role,
          kind: workspaces.kind,
          at: users.createdAt,
        })
        .from(workspaceMembers)
        .innerJoin(users, eq(users.id, workspaceMembers.userId))
        .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
        .where(eq(workspaceMembers.workspaceId, workspaceId)),
    );
    expect(row).toEqual({ email: 'ada@example.com', role: 'owner', kind: 'personal', at: NOW });

    const updated = await db.orm
      .update(users)
      .set({ disabledAt: NOW + 5 })
      .where(eq(users.id, userId))
      .returning({ id: users.id, disabledAt: users.disabledAt });
    expect(updated).toEqual([{ id: userId, disabledAt: NOW + 5 }]);

    await db.orm.delete(users).where(eq(users.id, userId));
    expect(await db.orm.select().from(sessions)).toEqual([]);
    expect(await db.orm.select().from(workspaceMembers)).toEqual([]);
    expect(await first(db.orm.select().from(users))).toBeUndefined();
  });

  it('numbers audit events itself, and keeps ids given explicitly (the copy command gives them)', async () => {
    const db = ctx.store;
    const { auditEvents } = db.t;
    await db.orm.insert(auditEvents).values({ id: 41, at: NOW, kind: 'copied' });
    // PostgreSQL's identity sequence knows nothing of id 41: the copy command moves it past the maximum.
    if (engine === 'postgres') {
      await db.orm.execute(
        "SELECT setval(pg_get_serial_sequence('audit_events', 'id'), (SELECT max(id) FROM audit_events))",
      );
    }
    const [a] = await db.orm.insert(auditEvents).values({ at: NOW, kind: 'x' }).returning();
    const [b] = await db.orm.insert(auditEvents).values({ at: NOW, kind: 'y' }).returning();
    expect(a?.id).toBe(42);
    expect(b?.id).toBe(43);
    expect(a).toMatchObject({ at: NOW, kind: 'x', workspaceId: null, durationMs: null });
  });

  it('runs a query prepared once with placeholders (the hot paths build their SQL once)', async () => {
    const db = ctx.store;
    const { users } = db.t;
    await seedUser(db, 'ada');
    await seedUser(db, 'bob');
    const byId = db.orm
      .select({ email: users.email })
      .from(users)
      .where(eq(users.id, sql.placeholder('id')))
      .prepare('test_user_by_id');
    expect(await byId.execute({ id: 'bob' })).toEqual([{ email: 'bob@example.com' }]);
    expect(await byId.execute({ id: 'ada' })).toEqual([{ email: 'ada@example.com' }]);
    expect(await byId.execute({ id: 'nobody' })).toEqual([]);
  });

  it('commits a transaction whole, and rolls it back whole when its callback throws', async () => {
    const db = ctx.store;
    const { users } = db.t;
    const value = await db.transaction(async (tx) => {
      expect(tx.inTransaction).toBe(true);
      await seedUser(tx, 'kept');
      return 'done';
    });
    expect(value).toBe('done');

    const failure = new Error('refused');
    await expect(
      db.transaction(async (tx) => {
        await seedUser(tx, 'dropped');
        // Reads inside see the transaction's own writes.
        expect(await first(tx.orm.select().from(users).where(eq(users.id, 'dropped')))).toBeDefined();
        throw failure;
      }),
    ).rejects.toBe(failure);
    const ids = (await db.orm.select({ id: users.id }).from(users)).map((u) => u.id);
    expect(ids).toEqual(['kept']);
  });

  it('nests a transaction as a savepoint: the inner one rolls back alone', async () => {
    const db = ctx.store;
    const { users } = db.t;
    await db.transaction(async (tx) => {
      await seedUser(tx, 'outer');
      await expect(
        tx.transaction(async (inner) => {
          await seedUser(inner, 'inner');
          throw new Error('inner refused');
        }),
      ).rejects.toThrow('inner refused');
      await tx.transaction(async (inner) => seedUser(inner, 'inner-ok'));
    });
    const ids = (await db.orm.select({ id: users.id }).from(users).orderBy(users.id)).map((u) => u.id);
    expect(ids).toEqual(['inner-ok', 'outer']);
  });

  it('goes on after a failed statement inside a nested transaction (PostgreSQL aborts the whole one otherwise)', async () => {
    const db = ctx.store;
    const { users } = db.t;
    await seedUser(db, 'ada');
    await db.transaction(async (tx) => {
      const duplicate = await tx
        .transaction(async (inner) =>
          inner.orm.insert(inner.t.users).values({
            id: 'other',
            email: 'ada@example.com',
            passwordHash: 'x',
            createdAt: NOW,
            updatedAt: NOW,
          }),
        )
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(isUniqueViolation(duplicate)).toBe(true);
      await seedUser(tx, 'bob');
    });
    const ids = (await db.orm.select({ id: users.id }).from(users).orderBy(users.id)).map((u) => u.id);
    expect(ids).toEqual(['ada', 'bob']);
  });

  it('refuses the root handle inside its own transaction, instead of waiting for ever', async () => {
    const db = ctx.store;
    const { users } = db.t;
    const misuse = db.transaction(async (tx) => {
      await seedUser(tx, 'inside');
      await db.orm.select().from(users);
    });
    const error = await misuse.then(
      () => null,
      (e: unknown) => e,
    );
    expect(causes(error).some((e) => e instanceof TransactionMisuseError)).toBe(true);
    await expect(db.transaction(async () => db.transaction(async () => 1))).rejects.toBeInstanceOf(
      TransactionMisuseError,
    );
    // Rolled back, and the store still works.
    expect(await db.orm.select().from(users)).toEqual([]);
  });

  it('still refuses the root handle in a transaction that had to wait for the previous one', async () => {
    // One connection on PostgreSQL: the second transaction waits for it, as on SQLite for the gate.
    const db = ctx.reopen({ max: 1 });
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = db.transaction(async () => held);
    const second = db.transaction(async () => db.orm.select().from(db.t.users));
    release();
    await first;
    const error = await second.then(
      () => null,
      (e: unknown) => e,
    );
    expect(causes(error).some((e) => e instanceof TransactionMisuseError)).toBe(true);
  });

  it('refuses a transaction handle used after its transaction ended', async () => {
    const db = ctx.store;
    const leaked = await db.transaction(async (tx) => tx);
    await expect(seedUser(leaked, 'late')).rejects.toBeInstanceOf(TransactionEndedError);
    await expect(leaked.transaction(async () => 1)).rejects.toBeInstanceOf(TransactionEndedError);
    expect(await db.orm.select().from(db.t.users)).toEqual([]);
  });

  it('runs a statement from outside an open transaction on its own: it is not rolled back with it', async () => {
    const db = ctx.store;
    const { users } = db.t;
    let proceed!: () => void;
    const proceeding = new Promise<void>((resolve) => {
      proceed = resolve;
    });
    let inserted!: () => void;
    const insertedInside = new Promise<void>((resolve) => {
      inserted = resolve;
    });
    const transaction = db.transaction(async (tx) => {
      await seedUser(tx, 'inside');
      inserted();
      await proceeding;
      throw new Error('roll back');
    });
    await insertedInside;
    const outside = seedUser(db, 'outside');
    // Let the outside statement reach the database (or, on SQLite, the transaction's gate).
    await new Promise((resolve) => setImmediate(resolve));
    proceed();
    await expect(transaction).rejects.toThrow('roll back');
    await outside;
    const ids = (await db.orm.select({ id: users.id }).from(users)).map((u) => u.id);
    expect(ids).toEqual(['outside']);
  });

  it('forUpdate serialises read-decide-write transactions: 40 accepts of a 10-use invite, exactly 10 pass', async () => {
    const db = ctx.store;
    const { invites } = db.t;
    const { workspaceId } = await seedUser(db, 'owner');
    await db.orm.insert(invites).values({
      id: 'inv',
      workspaceId,
      tokenHash: 'h',
      role: 'member',
      maxUses: 10,
      expiresAt: NOW + 1,
      createdAt: NOW,
    });
    const accept = () =>
      db.transaction(async (tx) => {
        const { invites: i } = tx.t;
        const invite = await first(forUpdate(tx, tx.orm.select().from(i).where(eq(i.id, 'inv'))));
        if (!invite || (invite.maxUses !== null && invite.uses >= invite.maxUses)) return false;
        await tx.orm
          .update(i)
          .set({ uses: invite.uses + 1 })
          .where(eq(i.id, 'inv'));
        return true;
      });
    const outcomes = await Promise.all(Array.from({ length: 40 }, accept));
    expect(outcomes.filter(Boolean)).toHaveLength(10);
    const invite = await first(db.orm.select({ uses: invites.uses }).from(invites));
    expect(invite?.uses).toBe(10);
  });

  it('a conditional UPDATE … RETURNING claims once: 20 concurrent claims of one code, one winner', async () => {
    const db = ctx.store;
    const { oauthCodes } = db.t;
    const { userId, workspaceId } = await seedUser(db, 'ada');
    await db.orm.insert(oauthCodes).values({
      codeHash: 'c',
      clientId: 'client',
      userId,
      workspaceId,
      redirectUri: 'http://localhost/cb',
      codeChallenge: 'x',
      scopes: 'searches:read',
      resource: 'http://localhost/mcp',
      createdAt: NOW,
      expiresAt: NOW + 60_000,
    });
    const claim = async (n: number) =>
      (
        await db.orm
          .update(oauthCodes)
          .set({ usedAt: NOW + n })
          .where(and(eq(oauthCodes.codeHash, 'c'), isNull(oauthCodes.usedAt)))
          .returning({ codeHash: oauthCodes.codeHash })
      ).length === 1;
    const wins = await Promise.all(Array.from({ length: 20 }, (_, n) => claim(n)));
    expect(wins.filter(Boolean)).toHaveLength(1);
  });

  it('tells a unique violation from other constraint failures', async () => {
    const db = ctx.store;
    await seedUser(db, 'ada');
    const duplicate = await db.orm
      .insert(db.t.users)
      .values({ id: 'other', email: 'ada@example.com', passwordHash: 'x', createdAt: NOW, updatedAt: NOW })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(isUniqueViolation(duplicate)).toBe(true);
    const orphan = await db.orm
      .insert(db.t.sessions)
      .values({ idHash: 's', userId: 'nobody', createdAt: NOW, lastSeenAt: NOW, expiresAt: NOW })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(orphan).not.toBeNull();
    expect(isUniqueViolation(orphan)).toBe(false);
  });

  it('refuses forUpdate outside a transaction (it would lock nothing)', () => {
    const db = ctx.store;
    expect(() => forUpdate(db, db.orm.select().from(db.t.users))).toThrow(/outside a transaction/);
  });
});

describe('a store without scope checks (production)', () => {
  it('runs a root-handle transaction inside another one on its own connection, where the checked store refuses it', async () => {
    const ctx = await migratedTestStore('postgres');
    try {
      const checked = ctx.store;
      const unchecked = ctx.reopen({ scopeChecks: false });
      await expect(
        checked.transaction(async () => checked.transaction(async () => 1)),
      ).rejects.toBeInstanceOf(TransactionMisuseError);
      // Unchecked, the inner one is simply another transaction: no promise hooks paid for the check.
      expect(await unchecked.transaction(async () => unchecked.transaction(async () => 1))).toBe(1);
    } finally {
      await ctx.cleanup();
    }
  });
});
