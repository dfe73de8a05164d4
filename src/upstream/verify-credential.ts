import { type AttemptObserver, createUpstreamClient } from './client.js';
import { UpstreamError } from './errors.js';

/**
 * Checks an upstream API token before it is stored: `GET {searchUrl}/api/usage` carries only the
 * token header (docs/upstream.md, Two hosts, two headers), so it needs no user id and spends no credits.
 * It goes through the same client as every tool call (one place that sends the token header, refuses
 * redirects and maps failures), once, without retries: the person is waiting at the form.
 */
export const VERIFY_TIMEOUT_MS = 8_000;

export type VerifyResult =
  | { status: 'valid' }
  /** The upstream said no (401/403): the token is wrong, revoked or rotated. */
  | { status: 'rejected'; httpStatus: number }
  /** No answer we can trust (network error, timeout, 5xx, anything unexpected): try again later. */
  | { status: 'unavailable'; reason: string };

export interface VerifyOptions {
  searchUrl: string;
  tokenHeader: string;
  token: string;
  timeoutMs?: number;
  /** Told of the attempt (the caller's metrics). */
  observe?: AttemptObserver;
}

export async function verifyUpstreamToken(options: VerifyOptions): Promise<VerifyResult> {
  const client = createUpstreamClient({
    searchUrl: options.searchUrl,
    agentUrl: options.searchUrl,
    tokenHeader: options.tokenHeader,
    timeoutMs: options.timeoutMs ?? VERIFY_TIMEOUT_MS,
    maxRetries: 0,
    ...(options.observe ? { observe: options.observe } : {}),
  });
  try {
    const { status } = await client.request(
      { token: options.token, userId: '' },
      { host: 'search', method: 'GET', path: '/api/usage', sendUserId: false },
    );
    return status === 200 ? { status: 'valid' } : { status: 'unavailable', reason: `http_${status}` };
  } catch (error) {
    if (!(error instanceof UpstreamError)) throw error;
    if ((error.kind === 'unauthorized' || error.kind === 'forbidden') && error.status !== null)
      return { status: 'rejected', httpStatus: error.status };
    if (error.kind === 'timeout' || error.kind === 'aborted')
      return { status: 'unavailable', reason: 'timeout' };
    if (error.kind === 'network') return { status: 'unavailable', reason: 'network_error' };
    return { status: 'unavailable', reason: error.status !== null ? `http_${error.status}` : error.kind };
  }
}

/**
 * Sandbox only: asks the emulator's control endpoint for a fresh credential
 * (`POST /__sandbox/credentials` answers `{token}`). Null when it does not answer so. The key carries
 * the producer permission, so expert search can be tried too (every tool works in the sandbox).
 */
export async function requestSandboxCredential(
  searchUrl: string,
  timeoutMs = VERIFY_TIMEOUT_MS,
): Promise<string | null> {
  try {
    const response = await fetch(`${searchUrl.replace(/\/+$/, '')}/__sandbox/credentials`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ producer: true }),
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      return null;
    }
    const body = (await response.json()) as { token?: unknown };
    return typeof body.token === 'string' && body.token.length > 0 ? body.token : null;
  } catch {
    return null;
  }
}
