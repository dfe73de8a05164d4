/** The two values a workspace's linked credential supplies, sent as headers on every call. */
export interface UpstreamCredentials {
  token: string;
  userId: string;
}

/** The only logging the client does: one debug line per attempt, never headers or bodies. */
export interface UpstreamLogger {
  debug(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
}

export type Host = 'search' | 'agent';

export type AttemptObserver = (host: Host, outcome: number | string, seconds: number) => void;

export interface RequestSpec {
  host: Host;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, unknown>;
  body?: unknown;
  /** Send the user-id header (every endpoint but GET /api/usage). Default true. */
  sendUserId?: boolean;
  signal?: AbortSignal;
  /** No attempt or retry pause runs past this (epoch ms): the call's own deadline. */
  deadline?: number;
}

/** Per-call options every method accepts. */
export interface CallOptions {
  signal?: AbortSignal;
  /** When the caller must have its answer (epoch ms): retries and time-outs fit before it. */
  deadline?: number | undefined;
}

export type Query = RequestSpec['query'];
