import { classifyInboundRequest } from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eraOf, sameJson } from '../../../src/mcp/sdk-bypass/era.js';

/** JSON text with members in a canonical order: equal for values sameJson must call equal. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Parsed JSON, as a request body is: through text, so `__proto__` is an own member as JSON.parse makes it. */
const parsedJson = fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)) as unknown);

describe('sameJson', () => {
  it('says two parsed JSON values are equal exactly when their canonical texts are', () => {
    fc.assert(
      fc.property(parsedJson, parsedJson, (a, b) => {
        expect(sameJson(a, b)).toBe(canonical(a) === canonical(b));
        expect(sameJson(a, JSON.parse(JSON.stringify(a)))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('tells apart values that differ in one member, a missing member, or an array from an object', () => {
    expect(sameJson({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 })).toBe(true);
    expect(sameJson({ a: 1, b: [1, { c: 'x' }] }, { a: 1, b: [1, { c: 'y' }] })).toBe(false);
    expect(sameJson({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(sameJson({ a: 1, b: null }, { a: 1 })).toBe(false);
    expect(sameJson({ 0: 'x' }, ['x'])).toBe(false);
    expect(sameJson(JSON.parse('{"__proto__":{"a":1}}'), JSON.parse('{"__proto__":{"a":2}}'))).toBe(false);
  });
});

/** The SDK classifier asked directly, as eraOf would the first time. */
function sdkVerdict(version: string | null, method: string | null, envelope: Record<string, unknown>) {
  const route = classifyInboundRequest({
    httpMethod: 'POST',
    body: { jsonrpc: '2.0', id: 0, method: 'tools/call', params: { name: 'tool', _meta: envelope } },
    ...(version === null ? {} : { protocolVersionHeader: version }),
    ...(method === null ? {} : { mcpMethodHeader: method }),
  });
  if (route.kind === 'modern' && route.messageKind === 'request')
    return route.classification.revision === '2026-07-28' ? 'modern' : null;
  return route.kind === 'legacy' && route.reason === 'no-claim' ? 'legacy' : null;
}

describe('eraOf, remembering verdicts', () => {
  const envelopes = fc.record(
    {
      'io.modelcontextprotocol/protocolVersion': fc.constantFrom('2026-07-28', '2025-11-25', '1999-01-01', 7),
      'io.modelcontextprotocol/clientInfo': fc.oneof(
        fc.record({ name: fc.constantFrom('a', 'b'), version: fc.constantFrom('1', '2') }),
        fc.constant('not an object'),
      ),
      'io.modelcontextprotocol/clientCapabilities': fc.oneof(
        fc.constant({}),
        fc.record({ extensions: fc.constant({ 'io.modelcontextprotocol/tasks': {} }) }),
        fc.constant([]),
      ),
    },
    { requiredKeys: [] },
  );
  const headers = fc.record({
    version: fc.constantFrom('2026-07-28', '2025-11-25', null),
    method: fc.constantFrom('tools/call', 'tools/list', null),
  });

  it('answers every request in a sequence as the SDK classifier does, whatever came before', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(headers, envelopes), { minLength: 1, maxLength: 30 }), (requests) => {
        for (const [h, envelope] of requests) {
          const parsed = JSON.parse(JSON.stringify(envelope)) as Record<string, unknown>;
          expect(eraOf(h.version, h.method, parsed)).toBe(sdkVerdict(h.version, h.method, parsed));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('is not fooled by a request changing the envelope it was classified with', () => {
    const envelope: Record<string, unknown> = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'a', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    expect(eraOf('2026-07-28', 'tools/call', envelope)).toBe('modern');
    envelope['io.modelcontextprotocol/protocolVersion'] = '1999-01-01';
    expect(eraOf('2026-07-28', 'tools/call', envelope)).toBe(
      sdkVerdict('2026-07-28', 'tools/call', envelope),
    );
  });
});
