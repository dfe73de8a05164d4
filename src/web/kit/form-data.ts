import type { Context } from 'hono';
import type { AppEnv } from '../../http/env.js';
import { readFormFields } from '../../http/form-body.js';

/** A browser form's string fields. */
export type Form = Record<string, string>;
/** The same, where a name sent more than once (checkboxes) keeps every value. */
export type FormAll = Record<string, string | string[]>;

/**
 * The form's string fields (the last value of a repeated name); files, other content types and
 * unreadable bodies give nothing, so the CSRF check then fails.
 */
export async function readForm(c: Context<AppEnv>): Promise<Form> {
  const form: Form = {};
  for (const [key, value] of (await readFormFields(c)) ?? []) form[key] = value;
  return form;
}

/** Like readForm, with repeated names as arrays. */
export async function readFormAll(c: Context<AppEnv>): Promise<FormAll> {
  const form: FormAll = {};
  for (const [key, value] of (await readFormFields(c)) ?? []) {
    const earlier = form[key];
    form[key] = earlier === undefined ? value : [earlier, value].flat();
  }
  return form;
}

/** One value of a field (the first when repeated), cut to `max` characters. */
export function one(form: FormAll, key: string, max = 1000): string {
  const v = form[key];
  return (typeof v === 'string' ? v : (v?.[0] ?? '')).slice(0, max);
}

/** Every value of a repeated field (checkboxes), at most `count` of them, each cut to `max` characters. */
export function many(form: FormAll, key: string, count = 20, max = 64): string[] {
  const v = form[key];
  return (typeof v === 'string' ? [v] : (v ?? [])).slice(0, count).map((s) => s.slice(0, max));
}
