import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { tempDir } from './temp.js';

/** A self-signed certificate for localhost and 127.0.0.1, made with the system's openssl. */
export function selfSignedCertificate(): { key: string; cert: string } {
  const dir = tempDir('sim-tls-');
  try {
    const key = join(dir.path, 'key.pem');
    const cert = join(dir.path, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-keyout',
        key,
        '-out',
        cert,
      ],
      { stdio: 'pipe' },
    );
    return { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') };
  } finally {
    dir.remove();
  }
}

/**
 * An https server on loopback serving JSON documents by path: where a Client ID Metadata Document
 * lives in tests. Counts requests per path.
 */
export class DocumentServer {
  readonly hits = new Map<string, number>();
  readonly documents = new Map<string, { body: string; headers?: Record<string, string> }>();
  private server!: Server;
  port = 0;

  constructor(private readonly tls: { key: string; cert: string }) {}

  async start(): Promise<this> {
    this.server = createServer(this.tls, (req, res) => {
      const path = new URL(req.url ?? '/', 'https://localhost').pathname;
      this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
      const doc = this.documents.get(path);
      if (!doc) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', ...doc.headers }).end(doc.body);
    });
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(path: string): string {
    return `https://localhost:${this.port}${path}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}
