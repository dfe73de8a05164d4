import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback redirect target, as a native MCP client opens one (RFC 8252 §7.3): it records each
 * callback's query parameters and tells the browser it may close.
 */
export class CallbackServer {
  private server!: Server;
  readonly received: URLSearchParams[] = [];
  private waiters: Array<(params: URLSearchParams) => void> = [];
  port = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname !== '/callback') {
        res.writeHead(404).end();
        return;
      }
      this.received.push(url.searchParams);
      for (const waiter of this.waiters.splice(0)) waiter(url.searchParams);
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>Connected. You can close this window.</p>');
    });
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `http://localhost:${this.port}/callback`;
  }

  next(): Promise<URLSearchParams> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

/**
 * An OAuthClientProvider kept in memory, with the shape both the v2 (`@modelcontextprotocol/client`)
 * and v1 (`@modelcontextprotocol/sdk`) clients take. `onRedirect` is where a real client would open
 * the browser; the tests drive Chromium there.
 */
export class MemoryOAuthProvider {
  clientInfo: Record<string, unknown> | undefined;
  savedTokens: Record<string, unknown> | undefined;
  verifier = '';
  discovery: unknown;
  redirects: URL[] = [];
  tokenSaves = 0;
  /** When false, a redirect is only recorded: the person is not there to sign in again. */
  interactive = true;

  constructor(
    private readonly options: {
      redirectUrl: string;
      clientName: string;
      onRedirect: (url: URL) => void | Promise<void>;
      clientMetadataUrl?: string;
      scope?: string;
    },
  ) {}

  get redirectUrl(): string {
    return this.options.redirectUrl;
  }

  get clientMetadataUrl(): string | undefined {
    return this.options.clientMetadataUrl;
  }

  get clientMetadata() {
    return {
      client_name: this.options.clientName,
      redirect_uris: [this.options.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(this.options.scope ? { scope: this.options.scope } : {}),
    };
  }

  clientInformation() {
    return this.clientInfo as never;
  }

  saveClientInformation(info: Record<string, unknown>) {
    this.clientInfo = info;
  }

  tokens() {
    return this.savedTokens as never;
  }

  saveTokens(tokens: Record<string, unknown>) {
    this.savedTokens = tokens;
    this.tokenSaves += 1;
  }

  async redirectToAuthorization(url: URL) {
    this.redirects.push(url);
    if (this.interactive) await this.options.onRedirect(url);
  }

  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }

  codeVerifier() {
    return this.verifier;
  }

  saveDiscoveryState(state: unknown) {
    this.discovery = state;
  }

  discoveryState() {
    return this.discovery as never;
  }
}
