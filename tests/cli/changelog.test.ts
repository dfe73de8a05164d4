import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/process.js';

const changelog = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

describe('CHANGELOG.md', () => {
  it('follows Keep a Changelog: Unreleased first, then versions newest first with ISO dates', () => {
    const headings = [...changelog.matchAll(/^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$/gm)];
    expect(headings[0]?.[1]).toBe('Unreleased');
    const released = headings.slice(1);
    expect(released.length).toBeGreaterThanOrEqual(1);
    for (const h of released) {
      expect(h[1]).toMatch(/^\d+\.\d+\.\d+$/);
      expect(h[2]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
  });

  it("its newest version is package.json's semantic version", () => {
    expect(pkg.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(/^## \[(\d+\.\d+\.\d+)\]/m.exec(changelog)?.[1]).toBe(pkg.version);
  });
});
