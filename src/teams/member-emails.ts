import { asc, eq } from 'drizzle-orm';
import type { Store } from '../db/store/index.js';

export interface MemberEmail {
  userId: string;
  email: string;
}

/**
 * The workspace's members by email, in email order: what the audit page names people by and offers in
 * its member filter. One join over the membership's primary key, none of listMembers' policy fields
 * (a team of thousands reads its member list on every audit page).
 */
export function memberEmails(db: Store, workspaceId: string): Promise<MemberEmail[]> {
  const { workspaceMembers: m, users } = db.t;
  return db.orm
    .select({ userId: m.userId, email: users.email })
    .from(m)
    .innerJoin(users, eq(users.id, m.userId))
    .where(eq(m.workspaceId, workspaceId))
    .orderBy(asc(users.email));
}
