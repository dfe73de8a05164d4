import { request } from 'node:https';
import { isIP } from 'node:net';
import { guardedLookup, isForbiddenAddress } from './ssrf.js';

export interface CimdFetchOptions {
  /** Development only: let client_id URLs point at loopback or private hosts. */
  allowPrivateHosts: boolean;
  /** Extra trusted CA certificates (PEM), e.g. a test server's self-signed certificate. */
  ca?: string | undefined;
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
}

export interface FetchedDocument {
  body: unknown;
  /** Seconds the document may be reused, from Cache-Control (clamped by the caller). */
  maxAgeSeconds: number | null;
}

export class CimdFetchError extends Error {
  override name = 'CimdFetchError';
}

/** The draft recommends documents of at most 5 KB (draft-ietf-oauth-client-id-metadata-document §4). */
const DEFAULT_MAX_BYTES = 5 * 1024;
const DEFAULT_TIMEOUT_MS = 5_000;
const DEFAULT_MAX_REDIRECTS = 3;

/**
 * Fetches a Client ID Metadata Document: https only, public addresses only (checked on the address
 * actually connected to), every redirect re-checked, bounded in time and size.
 */
export async function fetchClientMetadataDocument(
  url: string,
  options: CimdFetchOptions,
): Promise<FetchedDocument> {
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  let current = url;
  for (let hop = 0; hop <= maxRedirects; hop++) {
    const outcome = await fetchOnce(current, options);
    if (outcome.kind === 'document') return outcome.document;
    current = new URL(outcome.location, current).toString();
  }
  throw new CimdFetchError(`more than ${maxRedirects} redirects`);
}

type Outcome = { kind: 'document'; document: FetchedDocument } | { kind: 'redirect'; location: string };

function fetchOnce(url: string, options: CimdFetchOptions): Promise<Outcome> {
  const target = new URL(url);
  if (target.protocol !== 'https:')
    return Promise.reject(new CimdFetchError('the document must be served over https'));
  if (target.username || target.password)
    return Promise.reject(new CimdFetchError('the URL must not carry credentials'));
  const literal = target.hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal) && !options.allowPrivateHosts && isForbiddenAddress(literal)) {
    return Promise.reject(new CimdFetchError(`${target.hostname} is not a public address`));
  }
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  return new Promise((resolve, reject) => {
    const req = request(
      target,
      {
        method: 'GET',
        headers: { Accept: 'application/json', 'User-Agent': 'social-intel-mcp (client metadata fetch)' },
        lookup: guardedLookup(options.allowPrivateHosts) as never,
        ca: options.ca,
        timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        agent: false,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && res.headers.location) {
          res.resume();
          resolve({ kind: 'redirect', location: res.headers.location });
          return;
        }
        if (status !== 200) {
          res.resume();
          reject(new CimdFetchError(`the document URL answered HTTP ${status}`));
          return;
        }
        const declared = Number(res.headers['content-length'] ?? 0);
        if (declared > maxBytes) {
          res.destroy();
          reject(new CimdFetchError(`the document is larger than ${maxBytes} bytes`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            res.destroy();
            reject(new CimdFetchError(`the document is larger than ${maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          try {
            const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
            resolve({
              kind: 'document',
              document: { body, maxAgeSeconds: maxAge(res.headers['cache-control']) },
            });
          } catch {
            reject(new CimdFetchError('the document is not valid JSON'));
          }
        });
        res.on('error', (e) => reject(new CimdFetchError(e.message)));
      },
    );
    // A deadline on the whole exchange, not only on idle sockets.
    const deadline = setTimeout(
      () => req.destroy(new CimdFetchError('the document took too long to arrive')),
      options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    );
    req.on('close', () => clearTimeout(deadline));
    req.on('timeout', () => req.destroy(new CimdFetchError('the document took too long to arrive')));
    req.on('error', (e) => {
      const code = (e as NodeJS.ErrnoException).code;
      reject(
        e instanceof CimdFetchError
          ? e
          : new CimdFetchError(
              code === 'EFORBIDDENADDRESS'
                ? e.message
                : `could not fetch the document (${code ?? e.message})`,
            ),
      );
    });
    req.end();
  });
}

function maxAge(cacheControl: string | undefined): number | null {
  if (!cacheControl) return null;
  if (/\bno-store\b|\bno-cache\b/i.test(cacheControl)) return 0;
  const match = /\bmax-age=(\d+)/i.exec(cacheControl);
  return match ? Number(match[1]) : null;
}
