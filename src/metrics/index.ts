import { countAccountEvent, signInFailures } from './accounts.js';
import { databaseSize } from './database.js';
import { httpRequestDuration, httpRequests } from './http.js';
import { clientRegistrations, refreshes, refreshReuseDetections, tokensIssued } from './oauth.js';
import { toolCalls, waitingCalls } from './tools.js';
import { observeUpstream, upstreamRequestDuration } from './upstream.js';

/**
 * Every metric, for one-line hooks in other parts, e.g. `metrics.toolCalls.inc({ tool, outcome })`.
 * Definitions live one concern per file beside this one; the registry in registry.ts.
 */
export const metrics = {
  httpRequests,
  httpRequestDuration,
  toolCalls,
  waitingCalls,
  upstreamRequestDuration,
  observeUpstream,
  tokensIssued,
  refreshes,
  refreshReuseDetections,
  clientRegistrations,
  signInFailures,
  countAccountEvent,
  databaseSize,
};
