import { TOOLSET_DESCRIPTIONS, TOOLSETS, type Toolset } from '../../mcp/tools/toolsets.js';
import { CopyBlock, CopyLine } from '../kit/copy.js';
import { selectionUrl, shellQuote, tokenSnippets } from './snippets.js';

/** The contents entries of the cards below, after the other ways in. */
export const MORE_WAYS = [
  { id: 'access-tokens', title: 'An access token (scripts, CI)' },
  { id: 'toolsets', title: 'Fewer tools' },
] as const;

/** The toolsets and read-only switch the visitor chose in the builder (?toolset=…&readonly=on). */
export interface ToolChoice {
  /** Null until the builder was sent. */
  toolsets: Toolset[] | null;
  readOnly: boolean;
}

/**
 * Access tokens for what cannot open a browser, and the URL of a chosen set of tools. The builder is a
 * plain GET form: the page answers with the URL, no script needed.
 */
export function Automation(props: { mcpUrl: string; signedIn: boolean; choice: ToolChoice }) {
  const s = tokenSnippets(props.mcpUrl);
  const { choice } = props;
  const chosen = choice.toolsets;
  const all = chosen !== null && chosen.length === TOOLSETS.length;
  const url =
    chosen === null || chosen.length === 0
      ? null
      : selectionUrl(props.mcpUrl, all ? null : chosen, choice.readOnly);
  return (
    <div class="columns">
      <section class="card" id="access-tokens" aria-labelledby="access-tokens-heading">
        <h2 id="access-tokens-heading">{MORE_WAYS[0].title}</h2>
        <p>
          A CI job or an agent without a browser uses an access token instead of signing in. Make one on{' '}
          {props.signedIn ? <a href="/account#tokens-heading">your account page</a> : 'your account page'}: it
          acts as you in one workspace, with the permissions you tick, until it expires or you revoke it. It
          is shown once; keep it in <code>$SOCIAL_INTEL_TOKEN</code> or your CI's secrets.
        </p>
        <p>Claude Code:</p>
        <CopyBlock
          id="snippet-token-claude-code"
          text={s.claudeCode}
          what="the Claude Code command with a token"
        />
        <p>A JSON configuration (Cursor; VS Code takes the same headers):</p>
        <CopyBlock id="snippet-token-json" text={s.json} what="the configuration with a token" />
        <p>curl, listing the tools, then calling one:</p>
        <CopyBlock
          id="snippet-token-curl-list"
          text={s.curlList}
          what="the curl command that lists the tools"
        />
        <CopyBlock id="snippet-token-curl-call" text={s.curlCall} what="the curl command that calls a tool" />
      </section>
      <section class="card" id="toolsets" aria-labelledby="toolsets-heading">
        <h2 id="toolsets-heading">{MORE_WAYS[1].title}</h2>
        <p>
          Every tool a client loads costs the AI model in every conversation, and some clients take only their
          first few. Choose the groups you need, or read-only (nothing that writes or spends credits); the URL
          below then lists only those. It never grants more than you allowed.
        </p>
        <form method="get" action="/connect#toolsets" class="stack">
          <fieldset>
            <legend>Toolsets</legend>
            {TOOLSETS.map((t) => (
              <label class="check">
                <input
                  type="checkbox"
                  name="toolset"
                  value={t}
                  checked={chosen === null || chosen.includes(t)}
                />{' '}
                {TOOLSET_DESCRIPTIONS[t]} <code class="muted">{t}</code>
              </label>
            ))}
            <label class="check">
              <input type="checkbox" name="readonly" value="on" checked={choice.readOnly} /> Read-only
            </label>
          </fieldset>
          <div class="actions">
            <button type="submit" class="secondary">
              Build the URL
            </button>
          </div>
        </form>
        {url ? (
          <>
            <p>Your MCP URL for these tools:</p>
            <CopyLine id="toolsets-url" value={url} what="the MCP URL for these tools" />
            <CopyBlock
              id="snippet-toolsets-claude-code"
              text={`claude mcp add --transport http social-intel ${shellQuote(url)}`}
              what="the Claude Code command for these tools"
            />
          </>
        ) : chosen !== null ? (
          <p class="error">Tick at least one toolset.</p>
        ) : null}
        <p class="muted">
          The same by header: <code>X-MCP-Toolsets: searches,posts</code> and{' '}
          <code>X-MCP-Readonly: true</code>. When you allow an app, you choose its tools the same way (an app
          connecting at such a URL arrives with them ticked), and can change them on your account page.
        </p>
      </section>
    </div>
  );
}
