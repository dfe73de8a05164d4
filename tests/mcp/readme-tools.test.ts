import { describe, expect, it } from 'vitest';
import { schema } from '../../src/config-variables.js';
import { requiredScopeForTool, TOOL_SUMMARIES, toolByName } from '../../src/mcp/tools/index.js';
import { readDoc } from '../helpers/docs.js';

describe('docs: the tools table and the configuration variables', () => {
  it('docs/tools.md lists every tool of the catalog once, with its scope and toolset, and nothing else', () => {
    const tools = readDoc('docs/tools.md');
    // The tools table is the page's opening, before its first section.
    const section = tools.slice(0, tools.indexOf('\n## '));
    const rows = [...section.matchAll(/^\| `([a-z_]+)` \| `([a-z:]+)` \| `([a-z_]+)` \|/gm)].map((m) => [
      m[1],
      m[2],
      m[3],
    ]);
    expect(rows).toHaveLength(31);
    expect(rows.map(([name]) => name).sort()).toEqual(TOOL_SUMMARIES.map((t) => t.name).sort());
    for (const [name, scope, toolset] of rows) {
      expect(scope).toBe(requiredScopeForTool(name as string));
      expect(toolset).toBe(toolByName(name as string)?.toolset);
    }
  });

  it('docs/configuration.md documents every configuration variable the code reads', () => {
    const configuration = readDoc('docs/configuration.md');
    // The schema is what the code reads, so its keys are the list (no parsing of source text).
    const variables = Object.keys(schema.shape);
    expect(variables.length).toBeGreaterThan(15);
    const missing = variables.filter(
      (v) => !configuration.includes(`\`${v}\``) && v !== 'NODE_ENV' && v !== 'HOST',
    );
    expect(missing).toEqual([]);
  });
});
