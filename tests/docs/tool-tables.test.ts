import { describe, expect, it } from 'vitest';
import { TOOLS_PAGE, withGeneratedTables } from '../../scripts/docs-tools.js';
import { readDoc } from '../helpers/docs.js';

describe('docs: the tool tables are written from the definitions (npm run docs:tools)', () => {
  it('docs/tools.md holds the tables the definitions give, word for word', () => {
    const page = readDoc(TOOLS_PAGE);
    // Differs when a tool was added, removed or changed without `npm run docs:tools`.
    expect(page).toBe(withGeneratedTables(page));
  });

  it('a table written by hand is found out', () => {
    const page = readDoc(TOOLS_PAGE);
    const edited = page.replace(/^\| `usage` \|.*\n/m, '');
    expect(edited).not.toBe(page);
    expect(withGeneratedTables(edited)).not.toBe(edited);
  });
});
