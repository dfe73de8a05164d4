import fc from 'fast-check';

/**
 * The fast-check arbitraries of the hostile-input fuzzing (tests/reliability/fuzz-*.test.ts): any
 * text, forms with real and made-up keys, content types, bodies and Authorization headers.
 */
export const anyText = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\0',
    '%',
    '%zz',
    '\r\n',
    '../../etc/passwd',
    '<script>',
    "' OR 1=1 --",
    'x'.repeat(5000),
  ),
);

export function formOf(keys: string[], values: fc.Arbitrary<string>) {
  return fc.dictionary(fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 12 })), values, {
    maxKeys: 10,
  });
}

export const OAUTH_KEYS = [
  'grant_type',
  'code',
  'refresh_token',
  'client_id',
  'client_secret',
  'code_verifier',
  'redirect_uri',
  'resource',
  'scope',
  'token',
  'token_type_hint',
  'response_type',
  'code_challenge',
  'code_challenge_method',
  'state',
];

export const contentType = fc.constantFrom(
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=utf-8',
  'application/json',
  'text/plain',
  'multipart/form-data; boundary=x',
  '',
);

/** A body: a urlencoded form (possibly with repeated keys) or raw bytes. */
export const formBody = (keys: string[], values: fc.Arbitrary<string>) =>
  fc.oneof(
    formOf(keys, values).map((f) => new URLSearchParams(f).toString()),
    fc.tuple(formOf(keys, values), fc.constantFrom(...keys), values).map(([f, k, v]) => {
      const p = new URLSearchParams(f);
      p.append(k, v);
      p.append(k, v);
      return p.toString();
    }),
    fc.string({ unit: 'binary', maxLength: 300 }),
  );

export const authorization = fc.option(
  fc.oneof(
    fc.tuple(anyText, anyText).map(([a, b]) => `Basic ${Buffer.from(`${a}:${b}`).toString('base64')}`),
    anyText.map((s) => `Bearer ${s}`),
    fc.constantFrom('Basic', 'Basic !!!', 'Bearer', 'Digest x'),
  ),
  { nil: undefined },
);
