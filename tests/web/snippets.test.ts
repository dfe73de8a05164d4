import { describe, expect, it } from 'vitest';
import { clientSnippets, SERVER_NAME, shellQuote } from '../../src/web/connect/snippets.js';

/** Undoes shellQuote's single quoting, as a POSIX shell reads one word. */
function shellWord(word: string): string {
  return word.startsWith("'") ? word.slice(1, -1).replaceAll(`'\\''`, "'") : word;
}

describe('connect page snippets', () => {
  const url = 'https://mcp.example.com/mcp';
  const s = clientSnippets(url);

  it('VS Code mcp.json parses and names an http server at our URL', () => {
    expect(JSON.parse(s.vscodeJson)).toEqual({ servers: { [SERVER_NAME]: { type: 'http', url } } });
  });

  it('the code --add-mcp argument is one shell word of valid JSON', () => {
    const prefix = 'code --add-mcp ';
    expect(s.vscodeCommand.startsWith(prefix)).toBe(true);
    expect(JSON.parse(shellWord(s.vscodeCommand.slice(prefix.length)))).toEqual({
      name: SERVER_NAME,
      type: 'http',
      url,
    });
  });

  it('Cursor mcp.json and its install link carry the same configuration', () => {
    expect(JSON.parse(s.cursorJson)).toEqual({ mcpServers: { [SERVER_NAME]: { url } } });
    const link = new URL(s.cursorInstallLink);
    expect(`${link.protocol}//${link.host}${link.pathname}`).toBe(
      'cursor://anysphere.cursor-deeplink/mcp/install',
    );
    expect(link.searchParams.get('name')).toBe(SERVER_NAME);
    const config = Buffer.from(link.searchParams.get('config') ?? '', 'base64').toString('utf8');
    expect(JSON.parse(config)).toEqual({ url });
  });

  it('mcp-remote configuration parses and runs the bridge on our URL', () => {
    expect(JSON.parse(s.mcpRemoteJson)).toEqual({
      mcpServers: { [SERVER_NAME]: { command: 'npx', args: ['-y', 'mcp-remote', url] } },
    });
    expect(s.mcpRemoteCommand).toBe(`npx -y mcp-remote ${url}`);
  });

  it('Claude Code: one command with the http transport', () => {
    expect(s.claudeCode).toBe(`claude mcp add --transport http ${SERVER_NAME} ${url}`);
  });

  it('stays valid JSON and one shell word for an address with characters that need escaping', () => {
    const odd = "http://localhost:8787/mcp?x='a b'\"c\\";
    const o = clientSnippets(odd);
    expect(JSON.parse(o.vscodeJson).servers[SERVER_NAME].url).toBe(odd);
    expect(JSON.parse(o.cursorJson).mcpServers[SERVER_NAME].url).toBe(odd);
    expect(JSON.parse(o.mcpRemoteJson).mcpServers[SERVER_NAME].args[2]).toBe(odd);
    expect(JSON.parse(shellWord(o.vscodeCommand.slice('code --add-mcp '.length))).url).toBe(odd);
    expect(shellWord(shellQuote(odd))).toBe(odd);
  });
});
