import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { type Harness, type Json, startHarness } from '../helpers/harness.js';
import { type AppsClient, connectClient } from './clients.js';
import { type HostedView, type HostOptions, hostView } from './view-host.js';

/**
 * What the view tests share: the sandbox and the real server, a v2 client that declared MCP Apps (it
 * plays the host's MCP connection: it calls the tools, reads the views, and makes the calls the
 * views ask the host for), the upstream credential, and the browser.
 */
export interface AppsSetup {
  h: Harness;
  client: AppsClient;
  upstreamToken: string;
  browser: Browser;
  /** Calls a tool, then hosts the view its listing links to with that call's result. */
  show(
    toolName: string,
    args: Record<string, unknown>,
    options?: Partial<Pick<HostOptions, 'theme' | 'width'>> & { result?: Json },
  ): Promise<HostedView & { result: Json }>;
  /** GET on the sandbox's search host with this credential (what upstream holds). */
  upstream(path: string): Promise<Json>;
  close(): Promise<void>;
}

export async function startAppsSetup(): Promise<AppsSetup> {
  const h = await startHarness();
  const upstreamToken = await h.credential({ credits: 1_000 });
  const client = await connectClient('v2', h.mcpUrl, await h.token({ upstreamToken }), true);
  const browser = await launchBrowser();
  const { tools } = await client.listTools();
  const viewOf = new Map<string, string>(
    tools.filter((t) => t._meta?.ui?.resourceUri).map((t) => [t.name, t._meta.ui.resourceUri]),
  );
  const pages: HostedView[] = [];
  return {
    h,
    client,
    upstreamToken,
    browser,
    async show(toolName, args, options = {}) {
      const result = options.result ?? (await client.callTool({ name: toolName, arguments: args }));
      const uri = viewOf.get(toolName);
      if (!uri) throw new Error(`${toolName} lists no view`);
      const read = await client.readResource({ uri });
      const hosted = await hostView(browser, {
        resource: read.contents[0],
        toolName,
        toolInput: args,
        toolResult: result,
        theme: options.theme ?? 'light',
        width: options.width ?? 360,
        callTool: (params) => client.callTool(params),
      });
      pages.push(hosted);
      return { ...hosted, result };
    },
    async upstream(path) {
      const res = await fetch(`${h.sandbox.searchUrl}${path}`, {
        headers: { 'X-SERVICE-TOKEN': upstreamToken, 'X-SERVICE-USER-ID': 'analyst-1' },
      });
      return res.json();
    },
    async close() {
      for (const p of pages) await p.page.close().catch(() => {});
      await browser?.close();
      await client?.close();
      await h?.close();
    },
  };
}
