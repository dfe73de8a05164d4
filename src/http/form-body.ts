import type { Context } from 'hono';

/** A form's fields in the order sent, a name sent twice appearing twice. */
export type FormFields = ReadonlyArray<readonly [name: string, value: string]>;

const URLENCODED = /^application\/x-www-form-urlencoded\b/i;
const MULTIPART = /^multipart\/form-data\b/i;

/** Whether the request body is declared application/x-www-form-urlencoded. */
export function isUrlEncoded(c: Context): boolean {
  return URLENCODED.test(c.req.header('content-type') ?? '');
}

/**
 * The one reader of form bodies, for the OAuth endpoints and the browser pages alike: the fields of an
 * application/x-www-form-urlencoded body (the WHATWG URL standard's parser, as browsers encode it), or
 * the text fields of multipart/form-data when `multipart` is allowed (a form with
 * enctype="multipart/form-data"; file parts are dropped). Another content type, or a body that cannot
 * be read, gives null: the caller decides what that means (an OAuth error, a failed CSRF check).
 */
export async function readFormFields(
  c: Context,
  options: { multipart: boolean } = { multipart: true },
): Promise<FormFields | null> {
  const type = c.req.header('content-type') ?? '';
  try {
    if (URLENCODED.test(type)) return [...new URLSearchParams(await c.req.text())];
    if (options.multipart && MULTIPART.test(type)) {
      const fields: Array<[string, string]> = [];
      for (const [name, value] of await c.req.formData()) {
        if (typeof value === 'string') fields.push([name, value]);
      }
      return fields;
    }
  } catch {
    return null;
  }
  return null;
}
