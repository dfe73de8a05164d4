import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compactJsonSchema } from '../../../src/mcp/catalog/json-schema.js';

describe('compactJsonSchema (what tools/list advertises)', () => {
  it('drops the root $schema and empty additionalProperties, keeps every constraint', () => {
    const schema = z.looseObject({
      id: z.number().describe('The id.'),
      nested: z.looseObject({ tags: z.array(z.string()) }),
      strict: z.strictObject({ a: z.string() }),
    });
    const json = schema['~standard'].jsonSchema.output({ target: 'draft-2020-12' });
    expect(json.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(JSON.stringify(json)).toContain('"additionalProperties":{}');

    const compact = compactJsonSchema(json);
    expect(compact).not.toHaveProperty('$schema');
    expect(JSON.stringify(compact)).not.toContain('"additionalProperties":{}');
    expect(compact).toMatchObject({
      type: 'object',
      required: ['id', 'nested', 'strict'],
      properties: {
        id: { type: 'number', description: 'The id.' },
        nested: { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } } } },
        strict: { additionalProperties: false },
      },
    });
  });

  it('keeps a property that happens to be named additionalProperties', () => {
    const json = { type: 'object', properties: { additionalProperties: {} }, additionalProperties: {} };
    expect(compactJsonSchema(json)).toEqual({ type: 'object', properties: { additionalProperties: {} } });
  });

  it('leaves out what a model sends anyway and the server checks: an integer from 0 or 1, one item, one character', () => {
    const json = z
      .strictObject({
        offset: z.number().int().min(0),
        page: z.number().int().min(1),
        limit: z.number().int().min(1).max(100),
        day: z.number().int().min(2).max(31),
        ratio: z.number().min(0),
        name: z.string().min(1),
        tags: z.array(z.string()).min(1),
      })
      ['~standard'].jsonSchema.input({ target: 'draft-2020-12' });
    expect(compactJsonSchema(json).properties).toEqual({
      offset: { type: 'integer' },
      page: { type: 'integer' },
      limit: { type: 'integer', maximum: 100 },
      day: { type: 'integer', minimum: 2, maximum: 31 },
      ratio: { type: 'number', minimum: 0 },
      name: { type: 'string' },
      tags: { type: 'array', items: { type: 'string' } },
    });
  });
});
