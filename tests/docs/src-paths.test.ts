import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDoc } from '../helpers/docs.js';
import { ROOT } from '../helpers/process.js';

/** Every markdown page the repository keeps (docs, README, ARCHITECTURE, CHANGELOG aside: history). */
function pages(): string[] {
  return execFileSync('git', ['ls-files', '*.md'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((p) => p !== '' && p !== 'CHANGELOG.md' && !p.startsWith('bench/results/'));
}

/**
 * The `src/…` and `tests/…` paths a page names: a file (`src/mcp/handler.ts`, also as
 * `src/mcp/handler.ts:name`) or a folder (`src/mcp/tools/`). Patterns (`src/views/<name>/main.ts`,
 * `src/**`, `tests/mcp/sdk-bypass/waiting-wire*.test.ts`) are no paths.
 */
function repoPathsIn(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(?<![\w/.-])(?:src|tests)\/[\w./-]*[\w/]/g)) {
    const next = text[m.index + m[0].length];
    if (next !== '*' && !m[0].includes('*')) found.push(m[0]);
  }
  return [...new Set(found)];
}

describe('docs: every src/ and tests/ path a page names exists', () => {
  it('finds the paths a page names, and misses nothing that is not there', () => {
    expect(
      repoPathsIn(
        'see `src/mcp/handler.ts:decide`, src/mcp/tools/, src/views/<name>/main.ts, tests/mcp/tasks/ and tests/mcp/x*.ts.',
      ),
    ).toEqual(['src/mcp/handler.ts', 'src/mcp/tools/', 'src/views/', 'tests/mcp/tasks/']);
  });

  it.each(pages())('%s', (page) => {
    const missing = repoPathsIn(readDoc(page)).filter((p) => !existsSync(join(ROOT, p)));
    expect(missing).toEqual([]);
  });
});
