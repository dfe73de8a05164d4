/**
 * One error type for every way an upstream call can fail. `kind` is what callers branch on; `status`
 * is the upstream HTTP status when there was one. Messages never contain credentials.
 */
export type UpstreamErrorKind =
  | 'bad_request' // 400
  | 'unauthorized' // 401
  | 'payment_required' // 402
  | 'forbidden' // 403
  | 'not_found' // 404
  | 'unprocessable' // 422
  | 'rate_limited' // 429
  | 'server' // 5xx
  | 'http' // any other non-2xx
  | 'timeout' // our per-request timeout fired
  | 'network' // connection refused/reset, DNS, TLS …
  | 'unavailable' // not asked: its circuit is open after failures in a row (./circuit-breaker.ts)
  | 'malformed' // 2xx whose body is not the JSON we expect
  | 'aborted'; // the caller cancelled

/** One rejected field of a validation error (FastAPI-style `{loc, msg}` list): which, and why. */
export interface InvalidField {
  field: string;
  message: string;
}

export interface CreditShortfall {
  required: number | null;
  available: number | null;
}

export class UpstreamError extends Error {
  readonly kind: UpstreamErrorKind;
  readonly status: number | null;
  /** The upstream's own explanation (`error` / `detail`), flattened to one line. */
  readonly detail: string | null;
  /** For 402: the numbers from the body. */
  readonly credits: CreditShortfall | null;
  /**
   * For 429: how long upstream asked us to wait, in ms (null when it did not say); for `unavailable`:
   * when its circuit lets a request through again.
   */
  readonly retryAfterMs: number | null;
  /**
   * The fields a validation error names (the agent host's 422 `{detail: [{loc, msg}]}`): the request's
   * input was wrong, as opposed to a 422 about the item's state (`{detail: "…"}`). Null otherwise.
   */
  readonly invalidFields: InvalidField[] | null;
  readonly method: string;
  readonly path: string;

  constructor(init: {
    kind: UpstreamErrorKind;
    method: string;
    path: string;
    status?: number | null;
    detail?: string | null;
    credits?: CreditShortfall | null;
    retryAfterMs?: number | null;
    invalidFields?: InvalidField[] | null;
    cause?: unknown;
  }) {
    const status = init.status ?? null;
    super(
      `upstream ${init.method} ${init.path} failed: ${init.kind}${status === null ? '' : ` (${status})`}${
        init.detail ? `: ${init.detail}` : ''
      }`,
      init.cause === undefined ? undefined : { cause: init.cause },
    );
    this.name = 'UpstreamError';
    this.kind = init.kind;
    this.status = status;
    this.detail = init.detail ?? null;
    this.credits = init.credits ?? null;
    this.retryAfterMs = init.retryAfterMs ?? null;
    this.invalidFields = init.invalidFields ?? null;
    this.method = init.method;
    this.path = init.path;
  }
}

export function kindForStatus(status: number): UpstreamErrorKind {
  switch (status) {
    case 400:
      return 'bad_request';
    case 401:
      return 'unauthorized';
    case 402:
      return 'payment_required';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 422:
      return 'unprocessable';
    case 429:
      return 'rate_limited';
    default:
      return status >= 500 ? 'server' : 'http';
  }
}

/**
 * The upstream's explanation from an error body: the search host sends `{error}`, the agent host
 * `{detail}` (a string, or a FastAPI-style list of `{loc, msg}`). Anything else: the first 300
 * characters of the text.
 */
export function detailFromBody(text: string): string | null {
  if (text.trim() === '') return null;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text.trim().slice(0, 300);
  }
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const o = body as Record<string, unknown>;
    const message = o.message;
    if (typeof o.detail === 'string') return o.detail;
    if (Array.isArray(o.detail)) {
      return o.detail
        .map((item) => {
          if (item && typeof item === 'object') {
            const i = item as { loc?: unknown; msg?: unknown };
            const loc = Array.isArray(i.loc)
              ? i.loc.filter((p) => p !== 'body' && p !== 'query').join('.')
              : '';
            return `${loc ? `${loc}: ` : ''}${String(i.msg ?? '')}`;
          }
          return String(item);
        })
        .join('; ');
    }
    if (typeof o.error === 'string') {
      return typeof message === 'string' && message !== o.error ? `${o.error}: ${message}` : o.error;
    }
    if (typeof message === 'string') return message;
  }
  return text.trim().slice(0, 300);
}

/** Path segments of a `loc` that name where the field sits, not the field: left out of its name. */
const LOC_PLACES = new Set(['body', 'query', 'path']);

/** The fields of a FastAPI-style validation body (`{detail: [{loc, msg}]}`), or null for any other body. */
export function invalidFieldsFromBody(text: string): InvalidField[] | null {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  const detail = body && typeof body === 'object' ? (body as { detail?: unknown }).detail : undefined;
  if (!Array.isArray(detail) || detail.length === 0) return null;
  return detail.map((item) => {
    const i = (item && typeof item === 'object' ? item : {}) as { loc?: unknown; msg?: unknown };
    const loc = Array.isArray(i.loc) ? i.loc.filter((p) => !LOC_PLACES.has(String(p))).join('.') : '';
    return { field: loc || 'request', message: String(i.msg ?? 'is invalid').slice(0, 200) };
  });
}

/** `{required_credits, available_credits}` from a 402 body, numbers or numeric strings. */
export function creditsFromBody(text: string): CreditShortfall | null {
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    if (!body || typeof body !== 'object') return null;
    return { required: toNumber(body.required_credits), available: toNumber(body.available_credits) };
  } catch {
    return null;
  }
}

function toNumber(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
    return Number(value);
  return null;
}

/** Retry-After as seconds or an HTTP date, in ms from `now`; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now);
}
