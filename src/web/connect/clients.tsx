import type { Child } from 'hono/jsx';
import { CopyBlock } from '../kit/copy.js';
import type { ClientSnippets } from './snippets.js';

/** One client's steps, a card with its own heading (linked from the page's contents). */
function Client(props: { id: string; title: string; children?: Child }) {
  return (
    <section class="card" id={props.id} aria-labelledby={`${props.id}-heading`}>
      <h2 id={`${props.id}-heading`}>{props.title}</h2>
      {props.children}
    </section>
  );
}

export const CLIENTS = [
  { id: 'claude', title: 'Claude (claude.ai and Claude Desktop)' },
  { id: 'claude-code', title: 'Claude Code' },
  { id: 'chatgpt', title: 'ChatGPT' },
  { id: 'vscode', title: 'VS Code' },
  { id: 'cursor', title: 'Cursor' },
  { id: 'other', title: 'Any other client (mcp-remote)' },
] as const;

const title = (id: (typeof CLIENTS)[number]['id']) => CLIENTS.find((c) => c.id === id)?.title ?? id;

/** Per-client steps; every snippet carries this server's URL. */
export function ClientSteps({ s }: { s: ClientSnippets }) {
  return (
    <div class="columns">
      <Client id="claude" title={title('claude')}>
        <ol class="steps">
          <li>
            Settings → Connectors → <strong>Add custom connector</strong>.
          </li>
          <li>
            Name it (for example “Social Intel”) and paste the MCP URL above. Leave the advanced OAuth fields
            empty: Claude registers itself.
          </li>
          <li>
            <strong>Connect</strong>: a tab opens on this site. Sign in, link credentials if asked, then{' '}
            <strong>Allow</strong>.
          </li>
          <li>In a chat, turn the connector's tools on from the tools menu.</li>
        </ol>
        <p class="muted">
          Claude connects from its own servers, so this server must be reachable from the internet.
        </p>
      </Client>

      <Client id="claude-code" title={title('claude-code')}>
        <p>In a terminal:</p>
        <CopyBlock id="snippet-claude-code" text={s.claudeCode} what="the Claude Code command" />
        <p>
          Then inside Claude Code run <code>/mcp</code>, pick <code>social-intel</code> and choose{' '}
          <strong>Authenticate</strong>: the browser opens here for sign-in and <strong>Allow</strong>.
        </p>
      </Client>

      <Client id="chatgpt" title={title('chatgpt')}>
        <ol class="steps">
          <li>
            Settings → Apps &amp; Connectors → Advanced settings: turn on <strong>Developer mode</strong>.
          </li>
          <li>
            Settings → Apps &amp; Connectors → <strong>Create</strong>: give a name, paste the MCP URL above,
            choose <strong>OAuth</strong> authentication, confirm you trust it and create it.
          </li>
          <li>
            ChatGPT opens this site: sign in, link credentials if asked, then <strong>Allow</strong>.
          </li>
          <li>In a chat, choose Developer mode and the connector from the tools menu.</li>
        </ol>
      </Client>

      <Client id="vscode" title={title('vscode')}>
        <p>
          Add this to <code>.vscode/mcp.json</code> in your project (or to the user-level file from “MCP: Open
          User Configuration”):
        </p>
        <CopyBlock id="snippet-vscode-json" text={s.vscodeJson} what="the VS Code mcp.json" />
        <p>Or from a terminal:</p>
        <CopyBlock id="snippet-vscode-command" text={s.vscodeCommand} what="the VS Code command" />
        <p>
          Click <strong>Start</strong> above the entry; VS Code asks to let the server sign you in and opens
          the browser. After <strong>Allow</strong> the tools show in Copilot Chat's agent mode.
        </p>
      </Client>

      <Client id="cursor" title={title('cursor')}>
        <p>
          <a href={s.cursorInstallLink}>Add to Cursor</a> (opens Cursor and asks to install the server), or
          add this to <code>~/.cursor/mcp.json</code> (all projects) or <code>.cursor/mcp.json</code> (one
          project):
        </p>
        <CopyBlock id="snippet-cursor-json" text={s.cursorJson} what="the Cursor mcp.json" />
        <p>
          Cursor Settings → MCP then shows the server with <strong>Needs login</strong>: click it, sign in and{' '}
          <strong>Allow</strong> in the browser that opens.
        </p>
      </Client>

      <Client id="other" title={title('other')}>
        <p>
          Clients that only start local programs can reach this server through <code>mcp-remote</code>, which
          signs in with the browser itself:
        </p>
        <CopyBlock id="snippet-mcp-remote" text={s.mcpRemoteCommand} what="the mcp-remote command" />
        <p>or in the client's JSON configuration:</p>
        <CopyBlock id="snippet-mcp-remote-json" text={s.mcpRemoteJson} what="the mcp-remote configuration" />
        <p class="muted">
          It keeps its tokens under <code>~/.mcp-auth</code>. If its callback port is taken, add a free port
          after the URL (for example <code>3335</code>).
        </p>
      </Client>
    </div>
  );
}
