import { describe, expect, it } from 'vitest';
import {
  clientSnippets,
  SERVER_NAME,
  selectionUrl,
  shellQuote,
  tokenSnippets,
} from '../../src/web/connect/snippets.js';
import { waysInSnippets } from '../../src/web/connect/ways-in-snippets.js';

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

describe('connect page snippets: the ways in without signing in', () => {
  const url = 'https://mcp.example.com/mcp';
  const w = waysInSnippets(url, { tokenHeader: 'X-SERVICE-TOKEN', userHeader: 'X-SERVICE-USER-ID' });
  it('the local server: the published package by npx with `stdio`, the upstream user in its environment', () => {
    expect(JSON.parse(w.stdioJson)).toEqual({
      mcpServers: {
        [SERVER_NAME]: {
          command: 'npx',
          args: ['-y', 'social-intel-mcp', 'stdio'],
          env: { UPSTREAM_TOKEN: '<your API token>', UPSTREAM_USER_ID: '<your user id>' },
        },
      },
    });
    expect(w.stdioClaudeCode).toBe(
      `claude mcp add ${SERVER_NAME} -e 'UPSTREAM_TOKEN=<your API token>' -e 'UPSTREAM_USER_ID=<your user id>' -- npx -y social-intel-mcp stdio`,
    );
  });

  it('the headers: the configured names, in JSON, for Claude Code and for curl', () => {
    const headers = { 'X-SERVICE-TOKEN': '<your API token>', 'X-SERVICE-USER-ID': '<your user id>' };
    expect(JSON.parse(w.headersJson)).toEqual({ mcpServers: { [SERVER_NAME]: { url, headers } } });
    expect(w.headersClaudeCode).toBe(
      `claude mcp add --transport http ${SERVER_NAME} ${url} --header 'X-SERVICE-TOKEN: <your API token>' --header 'X-SERVICE-USER-ID: <your user id>'`,
    );
    expect(w.headersCurl).toContain(`-H 'X-SERVICE-USER-ID: <your user id>'`);
    const body = /-d '(.+)'$/.exec(w.headersCurl)?.[1] ?? '';
    expect(JSON.parse(body)).toMatchObject({ method: 'tools/call', params: { name: 'usage' } });
    const other = waysInSnippets(url, { tokenHeader: 'X-Api-Key', userHeader: 'X-Api-User' });
    expect(Object.keys(JSON.parse(other.headersJson).mcpServers[SERVER_NAME].headers)).toEqual([
      'X-Api-Key',
      'X-Api-User',
    ]);
  });
});

describe('access token and toolset snippets', () => {
  const url = 'https://mcp.example.com/mcp';

  it('the JSON configuration parses and carries the token as a bearer header; commands read it from the environment', () => {
    const s = tokenSnippets(url, 'sim_pat_x');
    expect(JSON.parse(s.json)).toEqual({
      mcpServers: { [SERVER_NAME]: { url, headers: { Authorization: 'Bearer sim_pat_x' } } },
    });
    expect(s.claudeCode).toBe(
      `claude mcp add --transport http ${SERVER_NAME} ${url} --header "Authorization: Bearer $SOCIAL_INTEL_TOKEN"`,
    );
    for (const curl of [s.curlList, s.curlCall]) {
      expect(curl).not.toContain('sim_pat_x');
      const body = /-d (.*)$/m.exec(curl)?.[1] ?? '';
      expect(JSON.parse(shellWord(body)).jsonrpc).toBe('2.0');
    }
  });

  it('the URL of a choice of tools: the read-only path and the toolsets parameter', () => {
    expect(selectionUrl(url, null, false)).toBe(url);
    expect(selectionUrl(url, null, true)).toBe(`${url}/readonly`);
    expect(selectionUrl(url, ['searches', 'posts'], false)).toBe(`${url}?toolsets=searches,posts`);
    expect(selectionUrl(url, ['account'], true)).toBe(`${url}/readonly?toolsets=account`);
  });
});
