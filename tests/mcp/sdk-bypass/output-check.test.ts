import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { compileOutputCheck } from '../../../src/mcp/sdk-bypass/output-check.js';
import { ALL_TOOLS } from '../../../src/mcp/tools/index.js';

/**
 * The compiled output checks (src/mcp/sdk-bypass/output-check.ts) against zod itself, for every tool's output
 * schema: on values built from the schema, with random fields left out, typed wrong or replaced by
 * anything, the check says yes exactly when zod does. (The direct path only needs "never yes when zod
 * says no"; agreeing both ways also proves it does not send valid results to zod for nothing.)
 */
type Node = { _zod: { def: Record<string, unknown> & { type: string } } };

/** Values shaped like `schema`, each node sometimes replaced by anything at all. */
function valuesOf(schema: Node, depth = 0): fc.Arbitrary<unknown> {
  const def = schema._zod.def;
  const wild = fc.oneof(
    fc.anything(),
    fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -0, undefined, null),
  );
  let shaped: fc.Arbitrary<unknown>;
  switch (def.type) {
    case 'string':
      shaped = fc.string();
      break;
    case 'number':
      shaped = fc.oneof(fc.integer(), fc.double());
      break;
    case 'boolean':
      shaped = fc.boolean();
      break;
    case 'unknown':
      shaped = fc.anything();
      break;
    case 'enum':
      shaped = fc.constantFrom(...Object.values(def.entries as Record<string, string>));
      break;
    case 'optional':
      shaped = fc.option(valuesOf(def.innerType as Node, depth), { nil: undefined });
      break;
    case 'array':
      shaped =
        depth > 4 ? fc.constant([]) : fc.array(valuesOf(def.element as Node, depth + 1), { maxLength: 3 });
      break;
    case 'object': {
      const shape = def.shape as Record<string, Node>;
      const fields = Object.fromEntries(
        Object.entries(shape).map(([key, node]) => [key, valuesOf(node, depth + 1)]),
      );
      shaped = fc
        .record(fields, { requiredKeys: [] })
        .chain((record) =>
          fc.dictionary(fc.string(), fc.anything(), { maxKeys: 2 }).map((extra) => ({ ...extra, ...record })),
        );
      break;
    }
    default:
      throw new Error(`no generator for ${def.type}`);
  }
  return fc.oneof({ arbitrary: shaped, weight: 9 }, { arbitrary: wild, weight: 1 });
}

describe('compiled output checks', () => {
  it('exist for every tool: its output schema needs no zod rule the check does not know', () => {
    for (const def of ALL_TOOLS) expect(compileOutputCheck(def.output), def.name).not.toBeNull();
  });

  it.each(ALL_TOOLS.map((def) => [def.name, def.output] as const))(
    'agree with zod for %s',
    (_name, schema) => {
      const check = compileOutputCheck(schema as z.ZodType);
      if (!check) throw new Error('no check');
      fc.assert(
        fc.property(valuesOf(schema as unknown as Node), (value) => {
          expect(check(value)).toBe((schema as z.ZodType).safeParse(value).success);
        }),
        { numRuns: 300 },
      );
    },
  );
});
