/**
 * A tool's JSON Schema as listed: what zod emits, minus what says nothing. The root `$schema` names
 * JSON Schema 2020-12, which is the dialect MCP assumes when `$schema` is absent (SEP-1613, final), and
 * `additionalProperties: {}` (zod's loose objects) allows what an absent keyword allows (JSON Schema
 * 2020-12 Core §10.3.2.3), as does an empty `properties: {}`. Together they were a twelfth of every
 * tools/list answer: bytes on the wire and tokens in every model's context, on every connect.
 *
 * A `pattern` next to a `format` is dropped too: zod spells `uuid`, `date`, `date-time` and `email` out
 * as regular expressions of up to 300 characters, repeated in every tool that takes one, while the
 * format name says the same to a model and to a validator (2020-12 Validation §7.3). The server still
 * checks the full rule (the handler validates with the zod schema) and answers with a clear message.
 * So does it for `minLength: 1` / `minItems: 1` and an integer's `minimum` of 0 or 1, which are not
 * listed either.
 */
export function compactJsonSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema;
  return withoutRedundant(rest) as Record<string, unknown>;
}

/** Keywords whose value maps names (a property may well be called `additionalProperties`) to schemas. */
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);

function withoutRedundant(value: unknown, namesHere = false): unknown {
  if (Array.isArray(value)) return value.map((item) => withoutRedundant(item));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  const record = value as Record<string, unknown>;
  for (const [key, child] of Object.entries(value)) {
    if (!namesHere && key === 'additionalProperties' && isEmptyObject(child)) continue;
    if (!namesHere && key === 'properties' && isEmptyObject(child)) continue;
    if (!namesHere && key === 'pattern' && typeof record.format === 'string') continue;
    // zod's `.int()` bounds every integer by Number.MAX_SAFE_INTEGER: true of any JSON integer we take.
    if (!namesHere && key === 'maximum' && child === Number.MAX_SAFE_INTEGER) continue;
    if (!namesHere && key === 'minimum' && child === Number.MIN_SAFE_INTEGER) continue;
    // "At least one" is what a model sends anyway; the server still refuses an empty value. So is a
    // whole number from 0 or 1 (an offset, a page, a limit): the server refuses one below and says why.
    if (!namesHere && (key === 'minLength' || key === 'minItems') && child === 1) continue;
    if (!namesHere && key === 'minimum' && (child === 0 || child === 1) && record.type === 'integer')
      continue;
    // Object keys are strings in JSON: zod's records say so with `propertyNames: {type: "string"}`.
    if (!namesHere && key === 'propertyNames' && isStringType(child)) continue;
    out[key] = withoutRedundant(child, !namesHere && NAME_MAPS.has(key));
  }
  return out;
}

function isStringType(value: unknown): boolean {
  return (
    value !== null &&
    typeof value === 'object' &&
    Object.keys(value).length === 1 &&
    (value as { type?: unknown }).type === 'string'
  );
}

function isEmptyObject(value: unknown): boolean {
  return (
    value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0
  );
}
