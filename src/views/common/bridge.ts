/**
 * The view's half of MCP Apps (SEP-1865 "Communication Protocol"): JSON-RPC 2.0 over postMessage
 * with the host window. A minimal implementation instead of the extension's App class: bundled with
 * the MCP SDK and zod it needs, App alone is several times a view's size budget
 * (scripts/build-views.ts, MAX_VIEW_BYTES), while the handful of messages a view uses take a few KB.
 */

export interface ContentBlock {
  type: string;
  text?: string;
}

export interface ToolResult {
  content?: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface HostContext {
  theme?: 'light' | 'dark';
  styles?: { variables?: Record<string, string | undefined> };
  safeAreaInsets?: { top: number; right: number; bottom: number; left: number };
  toolInfo?: { tool?: { name?: string } };
  [key: string]: unknown;
}

export interface HostCapabilities {
  openLinks?: object;
  serverTools?: object;
  [key: string]: unknown;
}

export interface ViewHandlers {
  toolInput?(args: Record<string, unknown>): void;
  toolResult?(result: ToolResult): void;
  toolCancelled?(reason: string): void;
  hostContext?(context: HostContext): void;
}

type Pending = { resolve(value: unknown): void; reject(error: Error): void };

/** The protocol revision of the extension this view speaks. */
const PROTOCOL_VERSION = '2026-01-26';

export class ViewBridge {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private context: HostContext = {};
  capabilities: HostCapabilities = {};

  constructor(
    private readonly appInfo: { name: string; version: string },
    private readonly handlers: ViewHandlers,
  ) {}

  get hostContext(): HostContext {
    return this.context;
  }

  /** Starts listening, performs ui/initialize, then announces the view ready. */
  async connect(): Promise<void> {
    window.addEventListener('message', (event) => this.receive(event));
    const result = (await this.request('ui/initialize', {
      appInfo: this.appInfo,
      appCapabilities: { availableDisplayModes: ['inline'] },
      protocolVersion: PROTOCOL_VERSION,
    })) as { hostContext?: HostContext; hostCapabilities?: HostCapabilities };
    this.capabilities = result?.hostCapabilities ?? {};
    this.context = result?.hostContext ?? {};
    this.handlers.hostContext?.(this.context);
    this.notify('ui/notifications/initialized', {});
    this.reportSize();
  }

  /** tools/call through the host (which forwards it to this server); rejects if the host refuses. */
  callTool(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    return this.request('tools/call', { name, arguments: args }) as Promise<ToolResult>;
  }

  /** Asks the host to open a link (the view's frame cannot navigate away itself). */
  openLink(url: string): Promise<unknown> {
    return this.request('ui/open-link', { url });
  }

  private request(method: string, params: unknown): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.post({ jsonrpc: '2.0', id, method, params });
    });
  }

  private notify(method: string, params: unknown): void {
    this.post({ jsonrpc: '2.0', method, params });
  }

  private post(message: unknown): void {
    // The host's origin is not known to a sandboxed frame; the messages carry nothing secret.
    window.parent.postMessage(message, '*');
  }

  private receive(event: MessageEvent): void {
    if (event.source !== window.parent) return;
    const message = event.data as {
      jsonrpc?: unknown;
      id?: unknown;
      method?: unknown;
      params?: unknown;
      result?: unknown;
      error?: { message?: unknown };
    };
    if (!message || typeof message !== 'object' || message.jsonrpc !== '2.0') return;
    if (typeof message.method === 'string') {
      if (message.id !== undefined) this.answer(message.id, message.method);
      else this.onNotification(message.method, message.params);
      return;
    }
    if (typeof message.id !== 'number') return;
    const waiting = this.pending.get(message.id);
    if (!waiting) return;
    this.pending.delete(message.id);
    if (message.error) waiting.reject(new Error(String(message.error.message ?? 'The host refused.')));
    else waiting.resolve(message.result);
  }

  /** Host requests: teardown and ping are acknowledged; anything else is not ours to serve. */
  private answer(id: unknown, method: string): void {
    if (method === 'ui/resource-teardown' || method === 'ping') {
      this.post({ jsonrpc: '2.0', id, result: {} });
      return;
    }
    this.post({ jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${method}` } });
  }

  private onNotification(method: string, params: unknown): void {
    const p = (params ?? {}) as Record<string, unknown>;
    switch (method) {
      case 'ui/notifications/tool-input':
        this.handlers.toolInput?.((p.arguments as Record<string, unknown>) ?? {});
        break;
      case 'ui/notifications/tool-result':
        this.handlers.toolResult?.(p as ToolResult);
        this.reportSize();
        break;
      case 'ui/notifications/tool-cancelled':
        this.handlers.toolCancelled?.(typeof p.reason === 'string' ? p.reason : '');
        break;
      case 'ui/notifications/host-context-changed':
        this.context = { ...this.context, ...p };
        this.handlers.hostContext?.(this.context);
        break;
    }
  }

  private lastSize = '';

  /** ui/notifications/size-changed whenever the content's size changes, so the host fits the frame. */
  reportSize(): void {
    const send = () => {
      // The body's own height: the document's would never shrink below the frame's current size.
      const width = document.documentElement.scrollWidth;
      const height = Math.ceil(document.body.getBoundingClientRect().height);
      const size = `${width}x${height}`;
      if (size === this.lastSize) return;
      this.lastSize = size;
      this.notify('ui/notifications/size-changed', { width, height });
    };
    if (!this.observer) {
      this.observer = new ResizeObserver(send);
      this.observer.observe(document.body);
    }
    send();
  }

  private observer: ResizeObserver | null = null;
}
