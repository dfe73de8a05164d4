/**
 * What each client needs to add this server, generated from its real MCP URL (PUBLIC_URL + /mcp).
 * Pure: the connect page shows these and a unit test parses every JSON one.
 */

/** The name the server gets in clients' configuration. */
export const SERVER_NAME = 'social-intel';

export interface ClientSnippets {
  mcpUrl: string;
  /** Claude Code: one command. */
  claudeCode: string;
  /** VS Code: `.vscode/mcp.json` (or the user-level mcp.json). */
  vscodeJson: string;
  /** VS Code: the same from a terminal. */
  vscodeCommand: string;
  /** Cursor: `~/.cursor/mcp.json` or `.cursor/mcp.json`. */
  cursorJson: string;
  /** Cursor: its install link (cursor://anysphere.cursor-deeplink/mcp/install, config base64 JSON). */
  cursorInstallLink: string;
  /** Any client that only starts local servers: the mcp-remote bridge. */
  mcpRemoteCommand: string;
  mcpRemoteJson: string;
}

/** A POSIX shell word: single quotes, with any single quote closed, escaped and reopened. */
export function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

export function clientSnippets(mcpUrl: string): ClientSnippets {
  const cursorEntry = { url: mcpUrl };
  const bridge = { command: 'npx', args: ['-y', 'mcp-remote', mcpUrl] };
  return {
    mcpUrl,
    claudeCode: `claude mcp add --transport http ${SERVER_NAME} ${shellQuote(mcpUrl)}`,
    vscodeJson: pretty({ servers: { [SERVER_NAME]: { type: 'http', url: mcpUrl } } }),
    vscodeCommand: `code --add-mcp ${shellQuote(JSON.stringify({ name: SERVER_NAME, type: 'http', url: mcpUrl }))}`,
    cursorJson: pretty({ mcpServers: { [SERVER_NAME]: cursorEntry } }),
    cursorInstallLink: `cursor://anysphere.cursor-deeplink/mcp/install?${new URLSearchParams({
      name: SERVER_NAME,
      config: Buffer.from(JSON.stringify(cursorEntry)).toString('base64'),
    }).toString()}`,
    mcpRemoteCommand: `npx -y mcp-remote ${shellQuote(mcpUrl)}`,
    mcpRemoteJson: pretty({ mcpServers: { [SERVER_NAME]: bridge } }),
  };
}

/** How to use an access token: shell commands read it from this variable, so it stays out of history. */
export const TOKEN_VARIABLE = 'SOCIAL_INTEL_TOKEN';

export interface TokenSnippets {
  /** Claude Code, with the token as a header. */
  claudeCode: string;
  /** A JSON configuration with the token as a header (Cursor's shape; VS Code's takes the same `headers`). */
  json: string;
  /** curl: list the tools, then call one (the 2025-06-18 protocol needs no handshake on this server). */
  curlList: string;
  curlCall: string;
}

/**
 * Using an access token from a client or a script. Shell commands read it from $SOCIAL_INTEL_TOKEN;
 * the JSON holds `token` itself (the page that shows a new token fills it in, elsewhere a placeholder).
 */
export function tokenSnippets(mcpUrl: string, token = '<your access token>'): TokenSnippets {
  const header = `"Authorization: Bearer $${TOKEN_VARIABLE}"`;
  const curl = (body: unknown) =>
    [
      `curl -s ${shellQuote(mcpUrl)} \\`,
      `  -H ${header} \\`,
      "  -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \\",
      "  -H 'MCP-Protocol-Version: 2025-06-18' \\",
      `  -d ${shellQuote(JSON.stringify(body))}`,
    ].join('\n');
  return {
    claudeCode: `claude mcp add --transport http ${SERVER_NAME} ${shellQuote(mcpUrl)} --header ${header}`,
    json: pretty({
      mcpServers: { [SERVER_NAME]: { url: mcpUrl, headers: { Authorization: `Bearer ${token}` } } },
    }),
    curlList: curl({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    curlCall: curl({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'usage', arguments: {} } }),
  };
}

/** The MCP URL of a choice of toolsets and read-only (what the connect page builds). */
export function selectionUrl(mcpUrl: string, toolsets: readonly string[] | null, readOnly: boolean): string {
  const base = readOnly ? `${mcpUrl}/readonly` : mcpUrl;
  return toolsets === null ? base : `${base}?toolsets=${toolsets.join(',')}`;
}
