import { hash } from 'node:crypto';
import { classifyInboundRequest } from '@modelcontextprotocol/server';

/** The one 2026-07-28-era revision this SDK serves (SUPPORTED_MODERN_PROTOCOL_VERSIONS). */
export const MODERN_REVISION = '2026-07-28';

type Verdict = 'modern' | 'legacy' | null;

/** What a verdict depends on, with the envelope as a private copy (the request's may be changed later). */
interface Asked {
  versionHeader: string | null;
  methodHeader: string | null;
  method: 'tools/call' | 'tasks/get';
  envelope: Record<string, unknown> | null;
  verdict: Verdict;
}

/**
 * The SDK classifier's verdicts by a SHA-256 digest of (headers, envelope) as JSON text: every distinct
 * one, bounded in count and, keyed by a fixed-size digest, in bytes (about 100 KB), whatever the
 * envelopes' size.
 */
const verdicts = new Map<string, Verdict>();
const VERDICTS_KEPT = 1_000;
/** An envelope larger than this (as JSON text) is not copied into `recent`: a client repeats small ones. */
const RECENT_ENVELOPE_MAX = 4_096;
/**
 * The latest verdicts, most recent first, compared member by member before any JSON text is written:
 * a client sends the same envelope with every request, so the first entry almost always answers.
 */
const recent: Asked[] = [];
const RECENT_KEPT = 8;

/**
 * The era the SDK's own classifier (classifyInboundRequest) gives a tools/call of the shape
 * ./direct-wire.ts:plainToolCall checks (or a tasks/get of the shape ./task-wire.ts:plainTaskGet
 * checks): 'modern' for a 2026-07-28 request of a revision this SDK serves, 'legacy' for a 2025-era
 * request without a claim, null for anything else (a rejection, another route). For such a body its
 * verdict depends only on the standard headers and the envelope: the JSON-RPC shape, the id, the
 * arguments and a (valid) progress token it checks are the same for all of them. So it is asked once
 * per distinct (headers, envelope), with a body of that shape, and remembered: classifying costs zod
 * parses (two of them failing) each time.
 */
export function eraOf(
  versionHeader: string | null,
  methodHeader: string | null,
  envelope: Record<string, unknown> | null,
  method: 'tools/call' | 'tasks/get' = 'tools/call',
): Verdict {
  for (let i = 0; i < recent.length; i++) {
    const asked = recent[i] as Asked;
    if (
      asked.versionHeader === versionHeader &&
      asked.methodHeader === methodHeader &&
      asked.method === method &&
      sameJson(asked.envelope, envelope)
    ) {
      if (i > 0) recent.unshift(...recent.splice(i, 1));
      return asked.verdict;
    }
  }
  const text = JSON.stringify([versionHeader, methodHeader, envelope, method]);
  const key = hash('sha256', text, 'base64url');
  let verdict = verdicts.get(key);
  if (verdict === undefined) {
    verdict = classify(versionHeader, methodHeader, envelope, method);
    if (verdicts.size >= VERDICTS_KEPT) verdicts.clear();
    verdicts.set(key, verdict);
  }
  if (text.length <= RECENT_ENVELOPE_MAX) {
    const copy = envelope === null ? null : (JSON.parse(JSON.stringify(envelope)) as Record<string, unknown>);
    recent.unshift({ versionHeader, methodHeader, method, envelope: copy, verdict });
    if (recent.length > RECENT_KEPT) recent.pop();
  }
  return verdict;
}

function classify(
  versionHeader: string | null,
  methodHeader: string | null,
  envelope: Record<string, unknown> | null,
  method: 'tools/call' | 'tasks/get',
): Verdict {
  const params: Record<string, unknown> = method === 'tools/call' ? { name: 'tool' } : { taskId: 'task' };
  const route = classifyInboundRequest({
    httpMethod: 'POST',
    body: {
      jsonrpc: '2.0',
      id: 0,
      method,
      params: envelope === null ? params : { ...params, _meta: envelope },
    },
    ...(versionHeader === null ? {} : { protocolVersionHeader: versionHeader }),
    ...(methodHeader === null ? {} : { mcpMethodHeader: methodHeader }),
  });
  if (route.kind === 'modern' && route.messageKind === 'request')
    return route.classification.revision === MODERN_REVISION ? 'modern' : null;
  if (route.kind === 'legacy' && route.reason === 'no-claim') return 'legacy';
  return null;
}

/**
 * Two parsed JSON values are equal: the same members with equal values, in any order (what JSON.stringify
 * of each would write, but for the order of members, which no classifier reads).
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let members = 0;
  for (const key in x) {
    if (!Object.hasOwn(y, key) || !sameJson(x[key], y[key])) return false;
    members++;
  }
  for (const key in y) if (Object.hasOwn(y, key)) members--;
  return members === 0;
}
