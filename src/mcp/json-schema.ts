/**
 * A tool's JSON Schema as listed: what zod emits, minus what says nothing. The root `$schema` names
 * JSON Schema 2020-12, which is the dialect MCP assumes when `$schema` is absent (SEP-1613, final), and
 * `additionalProperties: {}` (zod's loose objects) allows what an absent keyword allows (JSON Schema
 * 2020-12 Core §10.3.2.3). Together they were a twelfth of every tools/list answer: bytes on the wire
 * and tokens in every model's context, on every connect.
 */
export function compactJsonSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema;
  return withoutEmptyAdditional(rest) as Record<string, unknown>;
}

/** Keywords whose value maps names (a property may well be called `additionalProperties`) to schemas. */
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);

function withoutEmptyAdditional(value: unknown, namesHere = false): unknown {
  if (Array.isArray(value)) return value.map((item) => withoutEmptyAdditional(item));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (!namesHere && key === 'additionalProperties' && isEmptyObject(child)) continue;
    out[key] = withoutEmptyAdditional(child, !namesHere && NAME_MAPS.has(key));
  }
  return out;
}

function isEmptyObject(value: unknown): boolean {
  return (
    value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0
  );
}
