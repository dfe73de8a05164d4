/**
 * Writes the tool tables of docs/tools.md from the tool definitions (`npm run docs:tools`): the
 * catalog is the only place that knows which tools there are and how many, so the docs never state
 * it by hand. tests/docs/tool-tables.test.ts fails when the page and the definitions disagree.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ALL_TOOLS } from '../src/mcp/tools/index.js';
import { TOOLSET_DESCRIPTIONS, TOOLSETS } from '../src/mcp/tools/toolsets.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const TOOLS_PAGE = 'docs/tools.md';

/** Every tool: its scope, toolset and one line of what it does, in the catalog's order. */
function toolsTable(): string[] {
  return [
    '| tool | scope | toolset | what it does |',
    '|---|---|---|---|',
    ...ALL_TOOLS.map((t) => `| \`${t.name}\` | \`${t.scope}\` | \`${t.toolset}\` | ${t.summary} |`),
  ];
}

/** Every toolset, what it holds and how many tools. */
function toolsetsTable(): string[] {
  return [
    '| toolset | tools |',
    '|---|---|',
    ...TOOLSETS.map((set) => {
      const count = ALL_TOOLS.filter((t) => t.toolset === set).length;
      return `| \`${set}\` | ${TOOLSET_DESCRIPTIONS[set]} (${count}) |`;
    }),
  ];
}

const TABLES: Record<string, () => string[]> = { tools: toolsTable, toolsets: toolsetsTable };

/** The page with each generated table between its markers written anew from the definitions. */
export function withGeneratedTables(page: string): string {
  let out = page;
  for (const [name, table] of Object.entries(TABLES)) {
    const begin = `<!-- ${name} table: written by npm run docs:tools -->`;
    const end = `<!-- end of ${name} table -->`;
    const from = out.indexOf(begin);
    const to = out.indexOf(end);
    if (from < 0 || to < from) throw new Error(`${TOOLS_PAGE}: the markers of the ${name} table are missing`);
    out = `${out.slice(0, from + begin.length)}\n\n${table().join('\n')}\n\n${out.slice(to)}`;
  }
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const path = join(ROOT, TOOLS_PAGE);
  writeFileSync(path, withGeneratedTables(readFileSync(path, 'utf8')));
  console.log(`${TOOLS_PAGE}: ${ALL_TOOLS.length} tools in ${TOOLSETS.length} toolsets`);
}
