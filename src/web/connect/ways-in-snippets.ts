import { SERVER_NAME, shellQuote } from './snippets.js';

/**
 * The two ways in besides OAuth, as configuration to copy: the local stdio server (the published
 * package started by npx, the upstream user in its environment) and the two upstream headers sent to
 * the MCP URL. Pure: the connect page shows these and a unit test parses every JSON one. Placeholders
 * in angle brackets are what the person fills in.
 */
export interface WaysInSnippets {
  /** Claude Desktop's claude_desktop_config.json and Cursor's mcp.json: the command and its environment. */
  stdioJson: string;
  /** Claude Code: `claude mcp add` with the environment and the command after `--`. */
  stdioClaudeCode: string;
  /** Claude Code: the MCP URL with the two headers. */
  headersClaudeCode: string;
  /** Cursor's mcp.json (and VS Code's, inside "servers"): the URL and the two headers. */
  headersJson: string;
  /** One tool call by hand. */
  headersCurl: string;
}

/** How clients start a published MCP server: npx fetches the package once (-y: without asking). */
const NPX_ARGS = ['-y', 'social-intel-mcp', 'stdio'];
const TOKEN = '<your API token>';
const USER_ID = '<your user id>';

export function waysInSnippets(
  mcpUrl: string,
  headers: { tokenHeader: string; userHeader: string },
): WaysInSnippets {
  const env = { UPSTREAM_TOKEN: TOKEN, UPSTREAM_USER_ID: USER_ID };
  const sent = { [headers.tokenHeader]: TOKEN, [headers.userHeader]: USER_ID };
  const header = (name: string, value: string) => `--header ${shellQuote(`${name}: ${value}`)}`;
  const curlHeader = (text: string) => `-H ${shellQuote(text)}`;
  return {
    stdioJson: JSON.stringify(
      { mcpServers: { [SERVER_NAME]: { command: 'npx', args: NPX_ARGS, env } } },
      null,
      2,
    ),
    stdioClaudeCode: [
      `claude mcp add ${SERVER_NAME}`,
      ...Object.entries(env).map(([name, value]) => `-e ${shellQuote(`${name}=${value}`)}`),
      `-- npx ${NPX_ARGS.join(' ')}`,
    ].join(' '),
    headersClaudeCode: [
      `claude mcp add --transport http ${SERVER_NAME} ${shellQuote(mcpUrl)}`,
      ...Object.entries(sent).map(([name, value]) => header(name, value)),
    ].join(' '),
    headersJson: JSON.stringify({ mcpServers: { [SERVER_NAME]: { url: mcpUrl, headers: sent } } }, null, 2),
    headersCurl: [
      `curl -s ${shellQuote(mcpUrl)}`,
      curlHeader('content-type: application/json'),
      curlHeader('accept: application/json, text/event-stream'),
      curlHeader('mcp-protocol-version: 2025-06-18'),
      ...Object.entries(sent).map(([name, value]) => curlHeader(`${name}: ${value}`)),
      `-d ${shellQuote('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"usage","arguments":{}}}')}`,
    ].join(' '),
  };
}
