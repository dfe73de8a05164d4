/**
 * Checks an upstream API token before it is stored: `GET {searchUrl}/api/usage` carries only the
 * token header (upstream-api.md, Authentication §2), so it needs no user id and spends no credits.
 * The token travels in that one header only; it is never logged, and redirects are refused so it is
 * never replayed to another host.
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
}

export async function verifyUpstreamToken(options: VerifyOptions): Promise<VerifyResult> {
  const url = `${options.searchUrl.replace(/\/+$/, '')}/api/usage`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'GET',
      headers: { [options.tokenHeader]: options.token, accept: 'application/json' },
      redirect: 'error',
      signal: AbortSignal.timeout(options.timeoutMs ?? VERIFY_TIMEOUT_MS),
    });
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    return { status: 'unavailable', reason: timedOut ? 'timeout' : 'network_error' };
  }
  // The body is not needed; release the connection.
  await response.body?.cancel().catch(() => undefined);
  if (response.status === 200) return { status: 'valid' };
  if (response.status === 401 || response.status === 403)
    return { status: 'rejected', httpStatus: response.status };
  return { status: 'unavailable', reason: `http_${response.status}` };
}

/**
 * Sandbox only: asks the emulator's control endpoint for a fresh credential
 * (`POST /__sandbox/credentials` with `{}` answers `{token}`). Null when it does not answer so.
 */
export async function requestSandboxCredential(
  searchUrl: string,
  timeoutMs = VERIFY_TIMEOUT_MS,
): Promise<string | null> {
  try {
    const response = await fetch(`${searchUrl.replace(/\/+$/, '')}/__sandbox/credentials`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: '{}',
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
