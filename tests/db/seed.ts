import type { Store } from '../../src/db/store/index.js';

/** Timestamps beyond 2^31, as real ones are: bigint on PostgreSQL must round-trip them as numbers. */
export const NOW = 1_790_000_000_000;

/** One user with a personal workspace, written through the engine-neutral store. */
export async function seedUser(db: Store, id: string): Promise<{ userId: string; workspaceId: string }> {
  const { users, workspaces, workspaceMembers } = db.t;
  const workspaceId = `ws-${id}`;
  await db.orm.insert(users).values({
    id,
    email: `${id}@example.com`,
    passwordHash: 'x',
    createdAt: NOW,
    updatedAt: NOW,
  });
  await db.orm.insert(workspaces).values({
    id: workspaceId,
    name: id,
    kind: 'personal',
    createdAt: NOW,
    updatedAt: NOW,
  });
  await db.orm.insert(workspaceMembers).values({ workspaceId, userId: id, role: 'owner', createdAt: NOW });
  return { userId: id, workspaceId };
}
