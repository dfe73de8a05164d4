/**
 * A minimal MCP Apps host page for the view tests, in the browser: it frames a view the way a web
 * host does (a sandboxed iframe without same-origin, the CSP the spec builds from the resource's
 * `_meta.ui.csp` injected into the document) and talks to it with the extension's own host-side
 * bridge (AppBridge over PostMessageTransport). Tool calls the view makes go to the test, which
 * makes them on the real server with a real MCP client (window.hostCallTool, exposed by Playwright).
 */
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

interface Csp {
  connectDomains?: string[];
  resourceDomains?: string[];
  frameDomains?: string[];
  baseUriDomains?: string[];
}

export interface MountOptions {
  html: string;
  csp?: Csp;
  theme: 'light' | 'dark';
  width: number;
  toolName: string;
  toolInput: Record<string, unknown>;
  toolResult: Record<string, unknown>;
}

declare global {
  interface Window {
    mountView(options: MountOptions): Promise<void>;
    hostCallTool(params: unknown): Promise<Record<string, unknown>>;
    openedLinks: string[];
    toolCalls: unknown[];
  }
}

/** SEP-1865 "Content Security Policy Enforcement": the policy a host builds from the metadata. */
function hostPolicy(csp: Csp = {}): string {
  const list = (domains?: string[]) => (domains ?? []).join(' ');
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${list(csp.resourceDomains)}`,
    `style-src 'self' 'unsafe-inline' ${list(csp.resourceDomains)}`,
    `connect-src 'self' ${list(csp.connectDomains)}`,
    `img-src 'self' data: ${list(csp.resourceDomains)}`,
    `font-src 'self' ${list(csp.resourceDomains)}`,
    `media-src 'self' data: ${list(csp.resourceDomains)}`,
    `frame-src ${list(csp.frameDomains) || "'none'"}`,
    "object-src 'none'",
    `base-uri ${list(csp.baseUriDomains) || "'self'"}`,
  ].join('; ');
}

function withPolicy(html: string, csp?: Csp): string {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${hostPolicy(csp).replace(/"/g, '&quot;')}">`;
  return html.replace(/<head>/i, `<head>${meta}`);
}

window.openedLinks = [];
window.toolCalls = [];

window.mountView = async (options) => {
  const iframe = document.createElement('iframe');
  iframe.setAttribute('sandbox', 'allow-scripts');
  iframe.title = 'view';
  iframe.style.cssText = `display:block;border:0;width:${options.width}px;height:120px`;
  document.body.appendChild(iframe);
  const frame = iframe.contentWindow;
  if (!frame) throw new Error('no frame');
  const bridge = new AppBridge(
    null,
    { name: 'test-host', version: '1.0.0' },
    { openLinks: {}, serverTools: {}, logging: {} },
    {
      hostContext: {
        theme: options.theme,
        displayMode: 'inline',
        availableDisplayModes: ['inline'],
        containerDimensions: { maxWidth: options.width },
        platform: 'web',
        toolInfo: { tool: { name: options.toolName, inputSchema: { type: 'object' } } },
      },
    },
  );
  bridge.oncalltool = async (params) => {
    window.toolCalls.push(params);
    return (await window.hostCallTool(params)) as never;
  };
  bridge.onopenlink = async ({ url }) => {
    window.openedLinks.push(url);
    return {};
  };
  bridge.onsizechange = ({ height }) => {
    if (height) iframe.style.height = `${height}px`;
  };
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => resolve();
  });
  await bridge.connect(new PostMessageTransport(frame, frame));
  iframe.srcdoc = withPolicy(options.html, options.csp);
  await initialized;
  await bridge.sendToolInput({ arguments: options.toolInput });
  await bridge.sendToolResult(options.toolResult as never);
};
