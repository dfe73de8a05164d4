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
