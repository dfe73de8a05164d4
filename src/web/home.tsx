import { Hono } from 'hono';
import type { AppEnv } from '../http/env.js';
import { Layout } from './layout.js';
import { STYLESHEET } from './style.js';

export interface HomeOptions {
  publicUrl: string;
  sandboxMode: boolean;
  /** One line per tool (name and summary); empty until the tool catalog is mounted. */
  tools: ReadonlyArray<{ name: string; summary: string }>;
}

/** The landing page and the stylesheet. */
export function homeRoutes(options: HomeOptions) {
  const app = new Hono<AppEnv>();
  const mcpUrl = `${options.publicUrl}/mcp`;

  app.get('/assets/style.css', (c) =>
    c.body(STYLESHEET, 200, {
      'Content-Type': 'text/css; charset=utf-8',
      'Cache-Control': 'public, max-age=3600',
    }),
  );

  app.get('/', (c) =>
    c.html(
      <Layout title="Home">
        <h1>Social Intel MCP</h1>
        <p class="lead">
          Keyword and account searches across social platforms, expert search and research agents, as tools
          for Claude, ChatGPT, VS Code, Cursor or any MCP client.
        </p>
        {options.sandboxMode ? (
          <p class="notice warn" role="status">
            Sandbox mode: no upstream API is configured, so every tool talks to the built-in emulator with
            synthetic data. Set UPSTREAM_SEARCH_URL and UPSTREAM_AGENT_URL to use the real service.
          </p>
        ) : null}
        <h2>Connect</h2>
        <p>
          Add this URL as a remote MCP server (custom connector) in your AI client, then sign in when it asks:
        </p>
        <pre>
          <code>{mcpUrl}</code>
        </pre>
        <p>
          <a href="/sign-up">Create an account</a> or <a href="/sign-in">sign in</a> to link your API
          credentials.
        </p>
        {options.tools.length ? (
          <>
            <h2>Tools ({options.tools.length})</h2>
            <ul class="tools">
              {options.tools.map((tool) => (
                <li>
                  <code>{tool.name}</code> — {tool.summary}
                </li>
              ))}
            </ul>
          </>
        ) : null}
      </Layout>,
    ),
  );
  return app;
}
