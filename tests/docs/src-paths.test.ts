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
 * The `src/…` paths a page names: a file (`src/mcp/handler.ts`, also as `src/mcp/handler.ts:name`) or
 * a folder (`src/mcp/tools/`). Patterns (`src/views/<name>/main.ts`, `src/**`) are no paths.
 */
function srcPathsIn(text: string): string[] {
  const found = text.match(/(?<![\w/.-])src\/[\w./-]*[\w/]/g) ?? [];
  return [...new Set(found.filter((p) => !p.includes('*')))];
}

describe('docs: every src/ path a page names exists', () => {
  it('finds the paths a page names, and misses nothing that is not there', () => {
    expect(
      srcPathsIn('see `src/mcp/handler.ts:decide`, src/mcp/tools/ and src/views/<name>/main.ts.'),
    ).toEqual(['src/mcp/handler.ts', 'src/mcp/tools/', 'src/views/']);
  });

  it.each(pages())('%s', (page) => {
    const missing = srcPathsIn(readDoc(page)).filter((p) => !existsSync(join(ROOT, p)));
    expect(missing).toEqual([]);
  });
});
