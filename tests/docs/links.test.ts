import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchors, codeBlocks, proseLines, readDoc, section } from '../helpers/docs.js';
import { ROOT } from '../helpers/process.js';

/**
 * The docs hold together: README stays a short front page that names every page of docs/, every
 * relative link of README.md, docs/*.md and ARCHITECTURE.md reaches a file (and a heading, for an
 * anchor), and ARCHITECTURE.md names every folder of the repository.
 */
const DOCS = readdirSync(join(ROOT, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`);
const CHECKED = ['README.md', 'ARCHITECTURE.md', ...DOCS];

/** Relative link targets of a markdown text: `[x](target)`, and `src`/`href` of inline HTML, outside code. */
function relativeTargets(text: string): string[] {
  const prose = proseLines(text)
    .join('\n')
    .replace(/`[^`\n]*`/g, '');
  const markdown = [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1] as string);
  const html = [...prose.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
  return [...markdown, ...html].filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** Folders under the repository root that hold at least one file, as `path/`, skipping what is built or installed. */
function foldersOnDisk(): string[] {
  const skip = new Set(['node_modules', 'dist', 'data', 'coverage', 'test-results']);
  const found: string[] = [];
  const walk = (dir: string): boolean => {
    let holdsFile = false;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (skip.has(entry.name) || (entry.name.startsWith('.') && entry.name !== '.ci')) continue;
        if (walk(path)) {
          holdsFile = true;
          found.push(`${relative(ROOT, path)}/`);
        }
      } else if (entry.isFile()) holdsFile = true;
    }
    return holdsFile;
  };
  walk(ROOT);
  return found.sort();
}

describe('README.md', () => {
  const readme = readDoc('README.md');

  it('is a front page of at most 200 lines', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(200);
  });

  it("gives the test command CI runs: .ci/run ends with README's", () => {
    const [command] = codeBlocks(section(readme, 'Test'), 'sh');
    expect(command?.trim()).toBe('npm ci && npm test');
    const ci = readDoc('.ci/run').trimEnd().split('\n').slice(-2);
    expect(ci.join(' && ')).toBe(command?.trim());
  });

  it('links every page of docs/, ARCHITECTURE.md and CHANGELOG.md', () => {
    expect(DOCS.length).toBeGreaterThanOrEqual(10);
    const targets = new Set(relativeTargets(readme).map((t) => t.split('#')[0]));
    for (const page of [...DOCS, 'ARCHITECTURE.md', 'CHANGELOG.md']) expect(targets, page).toContain(page);
  });
});

describe('relative links', () => {
  it.each(CHECKED)('every one in %s reaches a file, and a heading of it for an anchor', (doc) => {
    const targets = relativeTargets(readDoc(doc));
    const broken: string[] = [];
    for (const target of targets) {
      const [path = '', anchor] = target.split('#');
      const file = path === '' ? doc : normalize(join(dirname(doc), decodeURIComponent(path)));
      if (!existsSync(join(ROOT, file))) {
        broken.push(`${target}: no file ${file}`);
        continue;
      }
      if (anchor !== undefined && file.endsWith('.md') && !anchors(readDoc(file)).has(anchor)) {
        broken.push(`${target}: no heading #${anchor} in ${file}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('finds links and broken ones (the checker itself)', () => {
    const text =
      '[a](docs/x.md#y) `[b](c.md)` <img src="p.png"> [c](https://example.com)\n```\n[d](e.md)\n```';
    expect(relativeTargets(text)).toEqual(['docs/x.md#y', 'p.png']);
    expect(anchors('# A `b`: c, d\n## A `b`: c, d\n```\n# not\n```')).toEqual(
      new Set(['a-b-c-d', 'a-b-c-d-1']),
    );
  });
});

describe('ARCHITECTURE.md', () => {
  it('names every folder of the repository in "Every folder", and none that is gone', () => {
    const table = section(readDoc('ARCHITECTURE.md'), 'Every folder');
    const named = [...table.matchAll(/^\| `([^`]+\/)` \|/gm)].map((m) => m[1] as string);
    expect(named.length).toBeGreaterThan(50);
    expect(new Set(named).size).toBe(named.length);
    expect([...named].sort()).toEqual(foldersOnDisk());
    for (const folder of named) expect(statSync(join(ROOT, folder)).isDirectory()).toBe(true);
  });
});
