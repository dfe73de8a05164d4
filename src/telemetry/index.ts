import type { ServerResponse } from 'node:http';

/*
 * The face of tracing that every layer may import: one switch and what it switches on. Nothing of
 * OpenTelemetry is imported here (not even its API): with no OTLP endpoint configured the SDK is never
 * loaded (./start.ts), `otel.on` stays false, and a hot path pays one property read.
 */

/** What a finished tool call, resource read or task work tells its span. */
export interface OutcomeMark {
  ok: boolean;
}

/** The outcome of one upstream attempt: the HTTP status, or the failure's kind (`timeout`, `network`). */
export type AttemptOutcome = { status: number } | { failure: string };

/** One MCP message over stdio: its span, ended when the answer with the same id is sent. */
export interface StdioSpans {
  /** Runs the SDK's handling of an incoming message inside that message's span (a request's). */
  inbound(message: unknown, handle: () => void): void;
  /** An outgoing message: a response ends its request's span with its outcome. */
  outbound(message: unknown): void;
}

export interface Tracing {
  /**
   * Serves one POST to /mcp under a SERVER span per JSON-RPC message it carries, continuing the
   * caller's trace (`params._meta` first, the HTTP `traceparent` header otherwise).
   */
  serveHttp(
    request: Request,
    body: unknown,
    outgoing: ServerResponse | undefined,
    serve: () => Promise<Response>,
  ): Promise<Response>;
  /** The spans of one stdio connection. */
  stdio(): StdioSpans;
  /** Marks the active MCP span with a tool call's outcome (a failure is `tool_error`). */
  outcome<T extends OutcomeMark>(outcome: Promise<T>): Promise<T>;
  mark(outcome: OutcomeMark): void;
  /**
   * One upstream HTTP attempt as a CLIENT span: `headers` gets the `traceparent` to send; the
   * attempt's duration is recorded by endpoint and outcome.
   */
  upstream<T>(
    method: string,
    url: string,
    headers: Record<string, string>,
    run: () => Promise<T>,
    outcomeOf: (result: T) => AttemptOutcome,
    failureOf: (error: unknown) => string,
  ): Promise<T>;
  /** A wait for long upstream work, as a span whose children are its polls. */
  wait<T>(job: string, run: () => Promise<T>, outcomeOf: (result: T) => string): Promise<T>;
  /** The active context, to run later work in (a shared poll, started from a timer). */
  active(): unknown;
  within<T>(context: unknown, run: () => T): T;
  /** A task's background work: a span of its own trace, linked to the request that created it. */
  taskWork<T>(tool: string, run: () => Promise<T>): Promise<T>;
  /** The active span's ids for a log line (trace_id, span_id), or nothing. */
  logFields(): Record<string, string>;
}

/** The switch: on only once the SDK is loaded and exporting. */
export const otel: { on: boolean; t: Tracing } = { on: false, t: undefined as unknown as Tracing };
