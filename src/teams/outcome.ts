import type { Db } from '../db/client.js';

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

/** Runs `fn` as one IMMEDIATE transaction: every change or none; a refusal rolls back. */
export function inTransaction<T>(db: Db, fn: (tx: Db) => T): Outcome<T> {
  try {
    const value = db.transaction((tx) => fn(tx as unknown as Db), { behavior: 'immediate' });
    return { ok: true, value };
  } catch (error) {
    if (error instanceof Refused) return error.refusal;
    throw error;
  }
}
