import { MAX_JSON_DEPTH, nestsDeeperThan } from '../http/json-depth.js';

/**
 * The size limits a JSON-RPC body on /mcp meets before anything reads it (docs/security.md, "Memory per
 * request"): nesting depth, a request id's length and the size of `params._meta`. Whatever a cache or
 * a log later keeps of a request is then bounded by these, not by the body limit. Each check is O(1)
 * for the bodies real clients send: the depth scan is one pass without allocation, `_meta` is measured
 * only when the body is larger than its limit, and an id's length is read, not copied.
 */
export const MAX_META_BYTES = 16 * 1024;
export const MAX_ID_LENGTH = 256;

export interface LimitRefusal {
  /** JSON-RPC 2.0 §5.1: -32600 Invalid Request, -32602 Invalid params. */
  code: number;
  message: string;
  id: string | number | null;
}

/** Why a body's text may not be parsed, or null. */
export function textRefusal(text: string): LimitRefusal | null {
  if (!nestsDeeperThan(text, MAX_JSON_DEPTH)) return null;
  return {
    code: -32600,
    message: `Invalid Request: the JSON nests deeper than ${MAX_JSON_DEPTH} levels.`,
    id: null,
  };
}

/** Why a parsed body (a message or a batch) is refused, or null; `textLength` is its text's length. */
export function messageRefusal(body: unknown, textLength: number): LimitRefusal | null {
  if (Array.isArray(body)) {
    for (const message of body) {
      const refusal = oneRefusal(message, textLength);
      if (refusal) return refusal;
    }
    return null;
  }
  return oneRefusal(body, textLength);
}

function oneRefusal(message: unknown, textLength: number): LimitRefusal | null {
  if (message === null || typeof message !== 'object') return null;
  const { id, params } = message as { id?: unknown; params?: { _meta?: unknown } };
  if (typeof id === 'string' && id.length > MAX_ID_LENGTH)
    return {
      code: -32600,
      message: `Invalid Request: the id is longer than ${MAX_ID_LENGTH} characters.`,
      id: null,
    };
  // `_meta` is part of the text: a body no longer than the limit holds no larger one.
  if (textLength <= MAX_META_BYTES || params === null || typeof params !== 'object') return null;
  if (params._meta === undefined || measure(params._meta, MAX_META_BYTES) >= 0) return null;
  return {
    code: -32602,
    message: `Invalid params: _meta is larger than ${MAX_META_BYTES} bytes of JSON.`,
    id: typeof id === 'string' || typeof id === 'number' ? id : null,
  };
}

/**
 * What is left of `budget` after the JSON text of `value` (strings and names by their length, each
 * value and separator a byte or more), or -1 as soon as it runs out: a large value is not walked
 * further than the budget.
 */
function measure(value: unknown, budget: number): number {
  if (typeof value === 'string') return budget - value.length - 2;
  if (value === null || typeof value !== 'object') return budget - 8;
  let left = budget - 2;
  if (Array.isArray(value)) {
    for (const item of value) {
      left = measure(item, left - 1);
      if (left < 0) return -1;
    }
    return left;
  }
  for (const key in value) {
    left = measure((value as Record<string, unknown>)[key], left - key.length - 4);
    if (left < 0) return -1;
  }
  return left;
}
