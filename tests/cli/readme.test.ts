import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { codeBlocks as blocks, readDoc, section } from '../helpers/docs.js';
import { ROOT } from '../helpers/process.js';

function program() {
  const sink = new PassThrough();
  const io = { env: {}, stdin: process.stdin, stdout: sink, stderr: sink };
  const root = buildProgram(io);
  const ran: string[] = [];
  const leaves: string[] = [];
  const walk = (command: Command, path: string[]) => {
    for (const sub of command.commands) {
      const here = [...path, sub.name()];
      if (sub.commands.length) walk(sub, here);
      else {
        leaves.push(here.join(' '));
        // Parse only: record which command the arguments reach instead of running it.
        sub.action(() => {
          ran.push(here.join(' '));
        });
      }
    }
  };
  walk(root, []);
  return { root, ran, leaves };
}

describe('docs/operations.md: Command line', () => {
  const text = section(readDoc('docs/operations.md'), 'Command line');

  it('documents every command the CLI has', () => {
    const { leaves } = program();
    expect(leaves.sort()).toEqual([
      'audit export',
      'config',
      'copy-to-postgres',
      'grants list',
      'grants revoke',
      'purge',
      'rotate-key',
      'serve',
      'stdio',
      'user create',
      'user list',
      'user reset-password',
    ]);
    for (const command of leaves) expect(text, command).toContain(`\`${command}`);
  });

  it('every example is a command line the CLI accepts', async () => {
    const examples = blocks(text, 'sh')
      .join('\n')
      .split('\n')
      .map((line) => /npx social-intel-mcp (.+?)(\s+#.*|\s+>.*)?$/.exec(line)?.[1])
      .filter((args): args is string => Boolean(args));
    expect(examples.length).toBeGreaterThanOrEqual(4);
    for (const example of examples) {
      const { root, ran } = program();
      await root.parseAsync(example.split(/\s+/), { from: 'user' });
      // Exactly one command ran, the one the example names.
      expect(ran, example).toHaveLength(1);
      expect(example.startsWith(ran[0] ?? '?'), example).toBe(true);
    }
  });
});

describe('docs/clients.md: Connecting AI clients', () => {
  const text = section(readDoc('docs/clients.md'), 'Connecting AI clients');

  it('gives each client the MCP URL in the form it expects', () => {
    const json = blocks(text, 'json').map((b) => JSON.parse(b) as Record<string, Record<string, unknown>>);
    expect(json).toContainEqual({ servers: { 'social-intel': { type: 'http', url: '<PUBLIC_URL>/mcp' } } });
    expect(json).toContainEqual({ mcpServers: { 'social-intel': { url: '<PUBLIC_URL>/mcp' } } });
    expect(json).toContainEqual({
      mcpServers: { 'social-intel': { command: 'npx', args: ['-y', 'mcp-remote', '<PUBLIC_URL>/mcp'] } },
    });
    expect(text).toContain('claude mcp add --transport http social-intel <PUBLIC_URL>/mcp');
    expect(text).toContain('npx mcp-remote <PUBLIC_URL>/mcp');
    for (const client of ['Claude Code', 'ChatGPT', 'VS Code', 'Cursor', 'mcp-remote', 'Troubleshooting']) {
      expect(text).toContain(
        `## ${client === 'mcp-remote' ? 'Any other client, through mcp-remote' : client}`,
      );
    }
  });

  it('names the buttons the pages really have', () => {
    for (const button of ['Allow']) expect(text).toContain(`**${button}**`);
    const consent = readFileSync(join(ROOT, 'src', 'web', 'consent.tsx'), 'utf8');
    expect(consent).toMatch(/>\s*Allow\s*</);
  });
});
