import { CopyBlock } from '../kit/copy.js';
import type { WaysInSnippets } from './ways-in-snippets.js';

/** The contents entries of the cards below, after the OAuth clients'. */
export const WAYS_IN = [
  { id: 'local', title: 'A local server (stdio)' },
  { id: 'headers', title: 'Your API token as headers' },
] as const;

/**
 * The two ways in the upstream API description names besides OAuth: both act as one upstream user
 * with their own token and user id, so they suit one person's own key, not a team's.
 */
export function WaysIn(props: {
  s: WaysInSnippets;
  headers: { tokenHeader: string; userHeader: string; accepted: boolean };
}) {
  const { s, headers } = props;
  return (
    <>
      <h2>Without signing in</h2>
      <p>
        With your own API token and user id you can skip the browser: the client then acts as that API user,
        with every tool. For a team's shared account, use the steps above, so no member holds its token.
      </p>
      <div class="columns">
        <section class="card" id="local" aria-labelledby="local-heading">
          <h3 id="local-heading">{WAYS_IN[0].title}</h3>
          <p>
            Clients that start a command (Claude Desktop, Cursor, Claude Code, VS Code) run this server on
            your own machine with <code>npx</code> (Node.js 20.19 or later): no account here, no browser. In{' '}
            <code>claude_desktop_config.json</code> or <code>~/.cursor/mcp.json</code>, with, for the real
            API, <code>UPSTREAM_SEARCH_URL</code> and <code>UPSTREAM_AGENT_URL</code> in <code>env</code> too:
          </p>
          <CopyBlock id="snippet-stdio-json" text={s.stdioJson} what="the local server configuration" />
          <p>Claude Code:</p>
          <CopyBlock id="snippet-stdio-claude-code" text={s.stdioClaudeCode} what="the Claude Code command" />
          <p>
            Or install the MCP Bundle, <code>social-intel-mcp.mcpb</code>, in Claude Desktop: one click, and
            its dialog asks for the same values.
          </p>
          <p class="muted">
            With no variables at all it runs a built-in sandbox with synthetic data: a try-out. A wrong token
            stops it at once with one line in the client's MCP log.
          </p>
        </section>
        <section class="card" id="headers" aria-labelledby="headers-heading">
          <h3 id="headers-heading">{WAYS_IN[1].title}</h3>
          {headers.accepted ? (
            <>
              <p>
                Send your token and user id as <code>{headers.tokenHeader}</code> and{' '}
                <code>{headers.userHeader}</code> to the MCP URL. Claude Code:
              </p>
              <CopyBlock
                id="snippet-headers-claude-code"
                text={s.headersClaudeCode}
                what="the Claude Code command with headers"
              />
              <p>
                Cursor's <code>mcp.json</code> (VS Code: the same inside <code>"servers"</code>):
              </p>
              <CopyBlock
                id="snippet-headers-json"
                text={s.headersJson}
                what="the configuration with headers"
              />
              <p>Or one call by hand:</p>
              <CopyBlock id="snippet-headers-curl" text={s.headersCurl} what="the curl command" />
              <p class="muted">
                Nothing of them is stored here; a wrong token is refused with a message naming the header.
              </p>
            </>
          ) : (
            <p>This server's operator has turned this way off: connect with the steps above.</p>
          )}
        </section>
      </div>
    </>
  );
}
