import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { headings, readDoc } from '../helpers/docs.js';
import { ROOT } from '../helpers/process.js';

/**
 * Comments point only inside the repository: a reader taking the code over has the repo and nothing
 * else, so a comment states the rule it relies on (or names the docs/ page that does) instead of
 * naming a design document kept elsewhere, a sibling folder's notes or a tracker's issue number.
 * Test names are held to the same rule, and a comment naming a section of ARCHITECTURE.md or a docs/
 * page names a heading that exists there. Every comment of src/, bench/, scripts/ and tests/ is read
 * with the TypeScript parser, so words in strings and code are not mistaken for comments.
 */
const FOLDERS = ['src', 'bench', 'scripts', 'tests'];
const SOURCE = /\.(?:ts|tsx|mts|cts|js|mjs|cjs)$/;

/** What names something outside the repository; "by design" and the like are fine (case matters). */
const OUTSIDE = [
  /\bDESIGN(?:\.md)?\b/,
  /\bupstream-(?:api|details)(?:\.md)?\b/,
  /(?:\.\.\/)+shared\/docs\b|\/work\/shared\b/,
  /\b[Ii]ssues? #?\d+/,
];

function sourceFiles(folder: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (SOURCE.test(name)) found.push(relative(ROOT, path));
    }
  };
  walk(join(ROOT, folder));
  return found;
}

/** Every comment of a file and the text of every test's and suite's name, with their line numbers. */
function commentsAndTestNames(fileName: string, text: string): { line: number; text: string }[] {
  const kind = fileName.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const found = new Map<number, string>();
  const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line + 1;
  const addRanges = (ranges: readonly ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) found.set(r.pos, text.slice(r.pos, r.end));
  };
  const visit = (node: ts.Node) => {
    addRanges(ts.getLeadingCommentRanges(text, node.getFullStart()));
    addRanges(ts.getTrailingCommentRanges(text, node.getEnd()));
    if (ts.isCallExpression(node) && isTestCall(node.expression)) {
      const [name] = node.arguments;
      if (name && (ts.isStringLiteral(name) || ts.isNoSubstitutionTemplateLiteral(name))) {
        found.set(name.getStart(source), name.text);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  addRanges(ts.getLeadingCommentRanges(text, source.endOfFileToken.getFullStart()));
  return [...found].map(([pos, comment]) => ({ line: lineOf(pos), text: comment }));
}

/** `describe`, `it`, `test` and their modifiers (`it.each(…)`, `describe.sequential`, …). */
function isTestCall(callee: ts.Expression): boolean {
  let head: ts.Expression = callee;
  while (ts.isPropertyAccessExpression(head) || ts.isCallExpression(head)) {
    head = ts.isCallExpression(head) ? head.expression : head.expression;
  }
  return ts.isIdentifier(head) && ['describe', 'it', 'test'].includes(head.text);
}

function outsideReferences(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  // Parsing is the slow part: a file whose text never matches has no comment that does.
  if (!OUTSIDE.some((pattern) => pattern.test(text))) return [];
  return commentsAndTestNames(file, text).flatMap((c) =>
    c.text
      .split('\n')
      .flatMap((line, i) =>
        OUTSIDE.some((p) => p.test(line)) ? [`${file}:${c.line + i}: ${line.trim()}`] : [],
      ),
  );
}

/** "(docs/oauth.md, Rules worth knowing)", "(ARCHITECTURE.md, "Caches over the database")": a doc and a section. */
const SECTION_REFERENCE = /\b(ARCHITECTURE\.md|docs\/[a-z-]+\.md),\s+(?:"([^"]+)"|([A-Z][^;:)"]*))/g;

/** The sections a comment names, its lines joined (a reference may wrap). */
function sectionReferences(comment: string): { doc: string; section: string }[] {
  const joined = comment.replace(/\n\s*(?:\*|\/\/)\s*/g, ' ');
  return [...joined.matchAll(SECTION_REFERENCE)].map((m) => ({
    doc: m[1] as string,
    section: ((m[2] ?? m[3]) as string).trim(),
  }));
}

const headingsByDoc = new Map<string, string[]>();
function headingTexts(doc: string): string[] {
  let found = headingsByDoc.get(doc);
  if (!found) {
    found = headings(readDoc(doc)).map((h) => h.text);
    headingsByDoc.set(doc, found);
  }
  return found;
}

const FILES = FOLDERS.flatMap(sourceFiles).filter((f) => f !== 'tests/docs/comments.test.ts');

describe('comments point only inside the repository', () => {
  it('finds comments and test names, and only those', () => {
    const sample = [
      '/** DESIGN.md §4 */',
      "const a = 'DESIGN.md'; // issue 16",
      "describe('x (issue 7)', () => { it.each([1])('y %s', () => {}); });",
      'const b = `upstream-api.md`; /* by design */',
    ].join('\n');
    expect(commentsAndTestNames('sample.ts', sample).map((c) => c.text)).toEqual([
      '/** DESIGN.md §4 */',
      '// issue 16',
      'x (issue 7)',
      'y %s',
      '/* by design */',
    ]);
    const hits = commentsAndTestNames('sample.ts', sample).filter((c) => OUTSIDE.some((p) => p.test(c.text)));
    expect(hits.map((c) => c.line)).toEqual([1, 2, 3]);
  });

  it("a comment naming a section of the repo's docs names a heading that exists", () => {
    const broken = FILES.flatMap((file) => {
      const text = readFileSync(join(ROOT, file), 'utf8');
      if (!/\b(?:ARCHITECTURE|docs\/[a-z-]+)\.md,/.test(text)) return [];
      return commentsAndTestNames(file, text).flatMap((c) =>
        sectionReferences(c.text)
          .filter((ref) => !headingTexts(ref.doc).some((h) => ref.section.startsWith(h)))
          .map((ref) => `${file}:${c.line}: ${ref.doc}, ${ref.section}`),
      );
    });
    expect(broken).toEqual([]);
  });

  it('no comment or test name in src/, bench/, scripts/ or tests/ names a document outside the repo or an issue number', () => {
    const found = FILES.flatMap(outsideReferences);
    expect(found).toEqual([]);
  });
});
