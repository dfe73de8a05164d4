import { describe, expect, it } from 'vitest';
import { safeNext } from '../../src/web/next.js';

/**
 * Every place a page redirects to a caller-chosen target goes through safeNext: a path on this
 * origin, checked again after the URL parser has normalised it (dot segments can turn `/.//x` into
 * `//x`, a protocol-relative URL to another host).
 */
const PUBLIC_URL = 'https://mcp.example.com';

const HOSTILE = [
  '/.//evil.example',
  '/./evil.example/..//evil.example',
  '/..//evil.example',
  '/a/..//evil.example',
  '/%2e//evil.example',
  '/%2E%2E//evil.example',
  '/.%2F/evil.example',
  '/\\evil.example',
  '/./\\evil.example',
  '/%2F%2Fevil.example',
  '/%2f/evil.example',
  '/%5Cevil.example',
  '/%5c%5cevil.example',
  '//evil.example',
  '///evil.example',
  'https://evil.example',
  'https:evil.example',
  'http://mcp.example.com@evil.example/',
  '\\\\evil.example',
  '\\/evil.example',
  '/\t/evil.example',
  '/\n/evil.example',
  '/\r\n/evil.example',
  '\t//evil.example',
  ' //evil.example',
  '/%09/evil.example',
  '/%0a/evil.example',
  'javascript:alert(1)',
  'data:text/html,x',
  'account',
  '',
];

describe('safeNext', () => {
  it.each(HOSTILE)('refuses %j', (value) => {
    expect(safeNext(value, PUBLIC_URL)).toBeNull();
  });

  it('refuses a target longer than 2048 characters', () => {
    expect(safeNext(`/${'a'.repeat(2048)}`, PUBLIC_URL)).toBeNull();
  });

  it('keeps same-origin paths with their query and fragment, normalised', () => {
    expect(safeNext('/authorize?client_id=a&state=b', PUBLIC_URL)).toBe('/authorize?client_id=a&state=b');
    expect(safeNext('/account/credentials?workspace=x#tokens', PUBLIC_URL)).toBe(
      '/account/credentials?workspace=x#tokens',
    );
    expect(safeNext('/account/./apps/../apps', PUBLIC_URL)).toBe('/account/apps');
    expect(safeNext('/account?next=%2F%2Fx', PUBLIC_URL)).toBe('/account?next=%2F%2Fx');
  });

  it('answers a result that is itself safe: a second pass changes nothing', () => {
    for (const value of ['/a/./b', '/a/../b?x=//y', '/x#//evil.example']) {
      const once = safeNext(value, PUBLIC_URL);
      expect(once).not.toBeNull();
      expect(safeNext(once, PUBLIC_URL)).toBe(once);
      expect(once?.startsWith('//')).toBe(false);
    }
  });
});
