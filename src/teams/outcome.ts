import { eq } from 'drizzle-orm';
import { first, forUpdate, type Store } from '../db/store/index.js';

/**
 * The result of a team or invite operation the pages show: a value, or a refusal with the HTTP status
 * and the sentence to show (and the form field it concerns).
 */
export type Refusal = { ok: false; status: 400 | 403 | 404 | 409 | 410; message: string; field?: string };
export type Outcome<T = undefined> = { ok: true; value: T } | Refusal;

/** Thrown inside a transaction to roll it back and answer with the refusal. */
class Refused extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.message);
  }
}

export function deny(status: Refusal['status'], message: string, field?: string): never {
  throw new Refused({ ok: false, status, message, ...(field ? { field } : {}) });
}

/** Runs `fn` as one transaction: every change or none; a refusal rolls back. */
export async function inTransaction<T>(db: Store, fn: (tx: Store) => Promise<T>): Promise<Outcome<T>> {
  try {
    const value = await db.transaction(fn);
    return { ok: true, value };
  } catch (error) {
    if (error instanceof Refused) return error.refusal;
    throw error;
  }
}

/**
 * Locks the workspace row until the transaction ends: team operations read the members, check an
 * invariant (the last owner, who may manage whom) and write, so on PostgreSQL two of them on one team
 * must not interleave (READ COMMITTED would let both pass the check). On SQLite the transaction already
 * holds the only write lock. Returns whether the workspace exists.
 */
export async function lockWorkspace(tx: Store, workspaceId: string): Promise<boolean> {
  const { workspaces } = tx.t;
  const row = await first(
    forUpdate(
      tx,
      tx.orm.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.id, workspaceId)),
    ),
  );
  return row !== undefined;
}
