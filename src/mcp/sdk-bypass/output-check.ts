import type { z } from 'zod';

/** Whether a value passes a tool's output schema, without building the parsed copy zod returns. */
export type OutputCheck = (value: unknown) => boolean;

interface Def {
  type: string;
  checks?: unknown[];
  shape?: Record<string, { _zod: { def: Def } }>;
  catchall?: { _zod: { def: Def } };
  innerType?: { _zod: { def: Def } };
  element?: { _zod: { def: Def } };
  entries?: Record<string, unknown>;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function compile(def: Def): OutputCheck | null {
  if (def.checks && def.checks.length > 0) return null;
  switch (def.type) {
    case 'unknown':
      return () => true;
    case 'string':
      return (v) => typeof v === 'string';
    case 'boolean':
      return (v) => typeof v === 'boolean';
    case 'number':
      return (v) => typeof v === 'number' && Number.isFinite(v);
    case 'enum': {
      const values = new Set(Object.values(def.entries ?? {}));
      return (v) => values.has(v);
    }
    case 'optional': {
      const inner = def.innerType && compile(def.innerType._zod.def);
      return inner ? (v) => v === undefined || inner(v) : null;
    }
    case 'array': {
      const element = def.element && compile(def.element._zod.def);
      if (!element) return null;
      return (v) => {
        if (!Array.isArray(v)) return false;
        for (let i = 0; i < v.length; i++) if (!element(v[i])) return false;
        return true;
      };
    }
    case 'object': {
      // Loose objects only (a catch-all of unknown): a strict or stripping object needs zod's own rules.
      if (def.catchall?._zod.def.type !== 'unknown') return null;
      const fields: Array<[string, OutputCheck]> = [];
      for (const [key, schema] of Object.entries(def.shape ?? {})) {
        const check = compile(schema._zod.def);
        if (!check) return null;
        fields.push([key, check]);
      }
      return (v) => {
        if (!isObject(v)) return false;
        for (const [key, check] of fields) if (!check(v[key])) return false;
        return true;
      };
    }
    default:
      return null;
  }
}

/**
 * A tool's output schema compiled into a plain check: zod's parse of a result builds
 * a copy of every object in it only to say yes. Output schemas here are loose objects of strings,
 * numbers, booleans, enums, arrays and unknowns (tools/output-schemas.ts); for anything else (a refinement, a
 * length limit, another kind of node) this is null and zod decides. A value the check refuses is given
 * to zod too, so the check need only never accept what zod refuses (tests/mcp/sdk-bypass/output-check.test.ts).
 */
export function compileOutputCheck(schema: z.ZodType): OutputCheck | null {
  return compile((schema as unknown as { _zod: { def: Def } })._zod.def);
}

const compiled = new WeakMap<z.ZodType, OutputCheck | null>();

/** compileOutputCheck, once per schema (every direct path asks for the same tools' schemas). */
export function outputCheckFor(schema: z.ZodType): OutputCheck | null {
  let check = compiled.get(schema);
  if (check === undefined) {
    check = compileOutputCheck(schema);
    compiled.set(schema, check);
  }
  return check;
}
