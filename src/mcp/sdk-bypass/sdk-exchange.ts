import type { AuthInfo } from '@modelcontextprotocol/server';
import type { CompiledTool } from '../catalog/catalog.js';

/**
 * One exchange on the SDK's handler with `tool` as the only tool registered (handler.ts): how the paths
 * that answer tool calls outside the SDK (./direct-call.ts, ./waiting-framed.ts, ./waiting-direct.ts)
 * hand it a result they do not frame themselves.
 */
export type Exchange = (
  request: Request,
  authInfo: AuthInfo,
  parsedBody: unknown,
  tool: CompiledTool,
) => Promise<Response>;

/**
 * The headers of the SDK's event-stream answers: the 2025 era's stateless POST
 * (WebStandardStreamableHTTPServerTransport) and a 2026-07-28 answer turned into a stream at its first
 * notification (PerRequestHTTPServerTransport.upgradeToSse) send the same four.
 */
export const EVENT_STREAM_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
} as const;

export const isEventStream = (response: Response): boolean =>
  /^text\/event-stream\b/i.test(response.headers.get('content-type') ?? '');
