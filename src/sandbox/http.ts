import type { Context } from 'hono';
import { DateTime } from 'luxon';
import type { z } from 'zod';

/** Body parse outcome: malformed JSON is told apart from a valid body so hosts can answer their way. */
export type BodyResult = { ok: true; value: unknown } | { ok: false; message: string };

export async function readJson(c: Context): Promise<BodyResult> {
  const text = await c.req.text();
  if (text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    return { ok: false, message: err instanceof Error ? err.message : 'Malformed JSON' };
  }
}

export const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/** A real calendar date in YYYY-MM-DD form (2026-02-30 is refused). */
export function isCalendarDate(value: string): boolean {
  if (!DATE_PATTERN.test(value)) return false;
  return DateTime.fromISO(value, { zone: 'utc' }).isValid;
}

export function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function minusDays(ms: number, days: number): string {
  return DateTime.fromMillis(ms, { zone: 'utc' }).minus({ days }).toISODate() ?? utcDate(ms);
}

export function minusMonths(ms: number, months: number): string {
  return DateTime.fromMillis(ms, { zone: 'utc' }).minus({ months }).toISODate() ?? utcDate(ms);
}

/** First zod issue as one sentence, for the search host's `{error}` body. */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'Invalid request';
  const path = issue.path.join('.');
  return path === '' ? issue.message : `${path}: ${issue.message}`;
}

/** zod issues as FastAPI-style validation details for the agent host's 422 bodies. */
export function validationDetail(error: z.ZodError, where: 'body' | 'query' | 'path'): ValidationItem[] {
  return error.issues.map((issue) => ({
    loc: [where, ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))],
    msg: issue.message,
    type: issue.code === 'invalid_type' && issue.message.includes('undefined') ? 'missing' : issue.code,
  }));
}

export interface ValidationItem {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
