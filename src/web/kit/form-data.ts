import type { Context } from 'hono';
import type { AppEnv } from '../../http/env.js';

/** A browser form's string fields. */
export type Form = Record<string, string>;
/** The same, where a name sent more than once (checkboxes) keeps every value. */
export type FormAll = Record<string, string | string[]>;

/** The form's string fields; files and unreadable bodies give nothing (the CSRF check then fails). */
export async function readForm(c: Context<AppEnv>): Promise<Form> {
  try {
    const body = await c.req.parseBody();
    const form: Form = {};
    for (const [key, value] of Object.entries(body)) {
      if (typeof value === 'string') form[key] = value;
    }
    return form;
  } catch {
    return {};
  }
}

/** Like readForm, with repeated names as arrays. */
export async function readFormAll(c: Context<AppEnv>): Promise<FormAll> {
  try {
    const body = await c.req.parseBody({ all: true });
    const form: FormAll = {};
    for (const [key, value] of Object.entries(body)) {
      if (typeof value === 'string') form[key] = value;
      else if (Array.isArray(value)) form[key] = value.filter((v): v is string => typeof v === 'string');
    }
    return form;
  } catch {
    return {};
  }
}

/** One value of a field (the first when repeated), cut to `max` characters. */
export function one(form: FormAll, key: string, max = 1000): string {
  const v = form[key];
  return (typeof v === 'string' ? v : (v?.[0] ?? '')).slice(0, max);
}
