import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/process.js';

/**
 * One name, one meaning: no exported function name is defined twice in the server's code. Two
 * functions of one name (`decide` for the serving paths and for the rate limiter) make every search
 * and every import a guess. The sandbox and the views share no code with the server by design (lint
 * rules), so their names are their own.
 */
const EXEMPT = ['src/sandbox/', 'src/views/'];

/** The server's source files, as paths from the repository root. */
function serverSources(): string[] {
  return readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
    .map((p) => `src/${p.split('\\').join('/')}`)
    .filter((p) => /\.tsx?$/.test(p) && !p.endsWith('.d.ts'))
    .filter((p) => !EXEMPT.some((folder) => p.startsWith(folder)));
}

const isExported = (node: ts.Node): boolean =>
  ts.canHaveModifiers(node) &&
  (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/** The functions a module exports: function declarations and consts holding an arrow or function. */
function exportedFunctions(path: string, text: string): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false);
  const names: string[] = [];
  for (const statement of source.statements) {
    if (!isExported(statement)) continue;
    if (ts.isFunctionDeclaration(statement) && statement.name) names.push(statement.name.text);
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      const value = declaration.initializer;
      const isFunction = value && (ts.isArrowFunction(value) || ts.isFunctionExpression(value));
      if (isFunction && ts.isIdentifier(declaration.name)) names.push(declaration.name.text);
    }
  }
  // An overloaded function is one function, declared once per signature.
  return [...new Set(names)];
}

/** Each name exported as a function by more than one file, with those files: `name: a.ts, b.ts`. */
function namesDefinedTwice(files: ReadonlyArray<readonly [path: string, text: string]>): string[] {
  const where = new Map<string, string[]>();
  for (const [path, text] of files) {
    for (const name of exportedFunctions(path, text)) where.set(name, [...(where.get(name) ?? []), path]);
  }
  return [...where]
    .filter(([, paths]) => paths.length > 1)
    .map(([name, paths]) => `${name}: ${paths.sort().join(', ')}`)
    .sort();
}

describe('one name, one meaning', () => {
  it('finds a name exported as a function by two files, and names both', () => {
    const files = [
      ['src/mcp/paths.ts', 'export function decide(facts: unknown) { return facts; }'],
      ['src/security/rate-limit.ts', 'export const decide = async (rule: unknown) => rule;'],
      ['src/web/form.ts', 'export const readForm = function () { return {}; };'],
      ['src/oauth/form.ts', 'export async function readForm() { return new Map(); }'],
      // Not functions, not exported, or one function's overloads: none of them counts.
      ['src/db/schema.ts', 'export const users = table(); function helper() {}'],
      ['src/db/pg.ts', 'export const users = table(); function helper() {}'],
      [
        'src/a.ts',
        'export function pick(x: string): string;\nexport function pick(x: unknown) { return x; }',
      ],
    ] as const;
    expect(namesDefinedTwice(files)).toEqual([
      'decide: src/mcp/paths.ts, src/security/rate-limit.ts',
      'readForm: src/oauth/form.ts, src/web/form.ts',
    ]);
  });

  it('no exported function name is defined twice outside the sandbox and the views', () => {
    const files = serverSources().map((p) => [p, readFileSync(join(ROOT, p), 'utf8')] as const);
    expect(files.length).toBeGreaterThan(300);
    expect(namesDefinedTwice(files)).toEqual([]);
  });
});
