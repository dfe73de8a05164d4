import { once } from 'node:events';
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A load balancer for tests: each request goes to the next backend in turn (round robin), so a
 * sequence of requests alternates between instances. Bodies and headers pass through unchanged,
 * streamed both ways (SSE included). `pin` sends requests to one backend until it is unpinned
 * (a test arranging which instance receives what); a backend that refuses the connection (killed)
 * is skipped, as a health-checking balancer would.
 */
export class RoundRobinProxy {
  private server!: Server;
  private next = 0;
  private pinned: number | null = null;
  private readonly down = new Set<number>();
  /** Which backend (index) each request was sent to, in the order they were sent. */
  readonly served: number[] = [];
  port = 0;

  constructor(private readonly backends: string[]) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => this.forward(req, res));
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Replaces the backends' addresses (instances that restarted on other ports). */
  setBackend(index: number, url: string): void {
    this.backends[index] = url;
    this.down.delete(index);
  }

  pin(index: number | null): void {
    this.pinned = index;
  }

  private choose(): number {
    if (this.pinned !== null) return this.pinned;
    for (let i = 0; i < this.backends.length; i++) {
      const candidate = this.next++ % this.backends.length;
      if (!this.down.has(candidate)) return candidate;
    }
    return this.next++ % this.backends.length;
  }

  private forward(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => this.send(req, Buffer.concat(chunks), res, 0));
  }

  private send(req: IncomingMessage, body: Buffer, res: ServerResponse, tries: number): void {
    const index = this.choose();
    this.served.push(index);
    const target = new URL(req.url ?? '/', this.backends[index]);
    const upstream = request(
      target,
      { method: req.method, headers: { ...req.headers, host: target.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        // An instance killed mid-answer: the client's connection ends too, as a real balancer's does
        // (pipe alone would leave it open, waiting for an end that never comes).
        answer.on('close', () => {
          if (!answer.complete) res.destroy();
        });
      },
    );
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      // A killed instance: the request never reached it, so the next one gets it.
      if (error.code === 'ECONNREFUSED' && tries < this.backends.length && this.pinned === null) {
        this.down.add(index);
        this.send(req, body, res, tries + 1);
        return;
      }
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    // The client went away (an aborted SSE stream): so does the request to the instance.
    res.on('close', () => upstream.destroy());
    upstream.end(body);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
