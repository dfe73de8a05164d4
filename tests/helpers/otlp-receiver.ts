import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One export an OTLP/HTTP receiver was sent. */
export interface OtlpExport {
  path: string;
  contentType: string;
  body: Buffer;
}

// biome-ignore lint/suspicious/noExplicitAny: OTLP JSON is read loosely by tests
type Json = any;

/** A span as OTLP/JSON carries it, with its resource's attributes beside it. */
export interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  status: { code?: number; message?: string };
  links: Array<{ traceId: string; spanId: string }>;
  resource: Record<string, unknown>;
}

/**
 * The test's own OTLP/HTTP receiver (a collector's front door, OTLP specification §OTLP/HTTP):
 * accepts POST /v1/traces and /v1/metrics in either encoding, answers 200 with an empty body, and
 * keeps every export's raw bytes.
 */
export async function startOtlpReceiver() {
  const exports: OtlpExport[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      exports.push({
        path: req.url ?? '',
        contentType: req.headers['content-type'] ?? '',
        body: Buffer.concat(chunks),
      });
      const json = (req.headers['content-type'] ?? '').includes('json');
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
      res.end(json ? '{}' : '');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exports,
    /** Every span of every JSON trace export so far. */
    spans(): ExportedSpan[] {
      const out: ExportedSpan[] = [];
      for (const e of exports.filter((x) => x.path === '/v1/traces' && x.contentType.includes('json'))) {
        const doc = JSON.parse(e.body.toString('utf8')) as Json;
        for (const rs of doc.resourceSpans ?? []) {
          const resource = attributesOf(rs.resource?.attributes);
          for (const ss of rs.scopeSpans ?? [])
            for (const s of ss.spans ?? [])
              out.push({
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId ?? '',
                name: s.name,
                kind: s.kind,
                attributes: attributesOf(s.attributes),
                status: s.status ?? {},
                links: (s.links ?? []).map((l: Json) => ({ traceId: l.traceId, spanId: l.spanId })),
                resource,
              });
        }
      }
      return out;
    },
    /** Every metric data point of every JSON metrics export so far, by metric name. */
    points(name: string): Array<{ attributes: Record<string, unknown>; count: number; sum: number }> {
      const out: Array<{ attributes: Record<string, unknown>; count: number; sum: number }> = [];
      for (const e of exports.filter((x) => x.path === '/v1/metrics' && x.contentType.includes('json'))) {
        const doc = JSON.parse(e.body.toString('utf8')) as Json;
        for (const rm of doc.resourceMetrics ?? [])
          for (const sm of rm.scopeMetrics ?? [])
            for (const m of sm.metrics ?? []) {
              if (m.name !== name) continue;
              for (const p of m.histogram?.dataPoints ?? [])
                out.push({ attributes: attributesOf(p.attributes), count: Number(p.count), sum: p.sum });
            }
      }
      return out;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type OtlpReceiver = Awaited<ReturnType<typeof startOtlpReceiver>>;

function attributesOf(list: Json[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const a of list ?? []) {
    const v = a.value ?? {};
    out[a.key] =
      v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue));
  }
  return out;
}

/** Polls `check` until it holds (exports arrive on the SDK's own schedule). */
export async function eventually<T>(
  check: () => T | undefined,
  what: string,
  timeoutMs = 20_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error(`never saw ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
