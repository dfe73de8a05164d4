import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP relay on a loopback port in front of another address (a database), which a test can take
 * down as a network would: `refuse()` drops every connection and closes each new one at once (the
 * server gone, a reset), `blackhole()` drops every connection and holds new ones without an answer (a
 * partition: the client waits for its timeout), `restore()` relays again.
 */
export class TcpRelay {
  private server!: Server;
  private mode: 'relay' | 'refuse' | 'blackhole' = 'relay';
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<this> {
    this.server = createServer((client) => this.accept(client));
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    const address = this.server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
    return this;
  }

  refuse(): void {
    this.mode = 'refuse';
    this.dropAll();
  }

  blackhole(): void {
    this.mode = 'blackhole';
    this.dropAll();
  }

  restore(): void {
    this.mode = 'relay';
    this.dropAll();
  }

  async close(): Promise<void> {
    this.dropAll();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    this.track(client);
    if (this.mode === 'refuse') {
      client.resetAndDestroy();
      return;
    }
    if (this.mode === 'blackhole') {
      client.on('error', () => {});
      return;
    }
    const target = connect(this.targetPort, this.targetHost);
    this.track(target);
    const drop = () => {
      client.destroy();
      target.destroy();
    };
    client.on('error', drop).on('close', drop);
    target.on('error', drop).on('close', drop);
    client.pipe(target);
    target.pipe(client);
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
  }

  private dropAll(): void {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }
}
