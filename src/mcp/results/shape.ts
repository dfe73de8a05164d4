import { estimateTokens, withinTokens } from './tokens.js';

/**
 * Result shaping: a token budget that trims the longest arrays (and, failing that, the longest
 * strings) and says exactly what it cut, so a model knows the data is partial and how to page for
 * the rest. Tokens are estimated on the high side (./tokens.ts).
 */

export interface Truncation {
  /** JSON path of the trimmed value, e.g. `results.posts.twitter`. */
  path: string;
  kind: 'array' | 'string';
  kept: number;
  total: number;
  /** Where the rest can be read (a tool and its arguments), when there is such a place. */
  rest?: string;
}

export interface Shaped {
  data: Record<string, unknown>;
  truncated: Truncation[];
  /** Estimated tokens of `json`; null when the data fit by its length alone, uncounted (./tokens.ts). */
  tokens: number | null;
  /** `data` as JSON text: measured for the budget, so the answer need not serialize it again. */
  json: string;
}

const MAX_ROUNDS = 60;

export function capResult(
  input: Record<string, unknown>,
  maxTokens: number,
  restOf?: (trimmed: Truncation) => string | null,
): Shaped {
  let json = jsonText(input);
  if (withinTokens(json, maxTokens)) return { data: input, truncated: [], tokens: null, json };
  let tokens = estimateTokens(json);
  // Work on a copy so upstream objects are never mutated.
  const data = structuredClone(input);
  const report = new Map<string, Truncation>();
  let truncated: Truncation[] | null = null;
  // Arrays whose rest can be read elsewhere go first: trimming them loses nothing for good.
  const reachable = (path: string) => restOf?.({ path, kind: 'array', kept: 0, total: 0 }) != null;
  for (let round = 0; round < MAX_ROUNDS && tokens > maxTokens; round++) {
    const target = largest(data, reachable);
    if (!target) break;
    // Sizes are in bytes; the excess in tokens is turned into bytes at this answer's own rate.
    const excess = ((tokens - maxTokens) * Buffer.byteLength(json, 'utf8')) / tokens;
    const { parent, key, value, path, size } = target;
    if (Array.isArray(value)) {
      const total = report.get(path)?.total ?? value.length;
      // Keep the share of items that fits, with a margin; at least one fewer than now.
      const share = Math.max(0, (size - excess) / size);
      const keep = Math.min(value.length - 1, Math.max(0, Math.floor(value.length * share * 0.95)));
      (parent as Record<string | number, unknown>)[key] = value.slice(0, keep);
      report.set(path, { path, kind: 'array', kept: keep, total });
    } else if (typeof value === 'string') {
      const total = report.get(path)?.total ?? value.length;
      const keep = Math.max(0, Math.min(value.length - 1, Math.floor((value.length - excess) * 0.95)));
      (parent as Record<string | number, unknown>)[key] = `${value.slice(0, keep)}…`;
      report.set(path, { path, kind: 'string', kept: keep, total });
    }
    // The report is part of the result: it counts against the budget too.
    truncated = withRest([...report.values()], restOf);
    data._truncated = truncated;
    json = jsonText(data);
    tokens = estimateTokens(json);
  }
  // Each round ends with `_truncated` written from the report and the JSON measured: only a loop that
  // found nothing to trim in its first round leaves both to do.
  if (truncated === null) {
    truncated = withRest([...report.values()], restOf);
    data._truncated = truncated;
    json = jsonText(data);
    tokens = estimateTokens(json);
  }
  return { data, truncated, tokens, json };
}

function withRest(report: Truncation[], restOf?: (trimmed: Truncation) => string | null): Truncation[] {
  return report.map((t) => {
    const rest = restOf?.(t);
    return rest ? { ...t, rest } : t;
  });
}

export function describeTruncation(truncated: Truncation[], maxTokens: number): string {
  if (truncated.length === 0) return '';
  const parts = truncated.map(
    (t) =>
      (t.kind === 'array'
        ? `${t.path}: ${t.kept} of ${t.total} items kept`
        : `${t.path}: first ${t.kept} of ${t.total} characters kept`) +
      (t.rest ? `, the rest: ${t.rest}` : ''),
  );
  return `Answer cut to fit ${maxTokens.toLocaleString('en-US')} tokens (${parts.join('; ')}).`;
}

function jsonText(value: unknown): string {
  return JSON.stringify(value) ?? '';
}

interface Candidate {
  parent: unknown;
  key: string | number;
  value: unknown[] | string;
  path: string;
  size: number;
}

/**
 * The non-empty array with the largest serialized size, among those whose rest is `reachable` elsewhere
 * when any is left; when no array is worth trimming, the longest string over 2 KB.
 */
function largest(root: Record<string, unknown>, reachable: (path: string) => boolean): Candidate | null {
  let bestArray: Candidate | null = null;
  let bestReachable: Candidate | null = null;
  let bestString: Candidate | null = null;
  const visit = (parent: unknown, key: string | number, value: unknown, path: string): number => {
    if (Array.isArray(value)) {
      let size = 2;
      value.forEach((item, i) => {
        size += visit(value, i, item, `${path}[${i}]`) + 1;
      });
      if (value.length > 0) {
        const candidate = { parent, key, value, path: stripIndexes(path), size };
        if (!bestArray || size > bestArray.size) bestArray = candidate;
        if (reachable(candidate.path) && (!bestReachable || size > bestReachable.size))
          bestReachable = candidate;
      }
      return size;
    }
    if (value && typeof value === 'object') {
      let size = 2;
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        if (k === '_truncated') continue;
        size += visit(value, k, v, path ? `${path}.${k}` : k) + k.length + 4;
      }
      return size;
    }
    if (typeof value === 'string') {
      const size = Buffer.byteLength(value, 'utf8') + 2;
      if (size > 2048 && (!bestString || size > bestString.size)) {
        bestString = { parent, key, value, path: stripIndexes(path), size };
      }
      return size;
    }
    return String(value).length;
  };
  visit(null, '', root, '');
  if (bestReachable) return bestReachable;
  const a = bestArray as Candidate | null;
  const s = bestString as Candidate | null;
  if (a && (!s || a.size >= s.size)) return a;
  return s;
}

/** Paths name arrays, not positions: `results.posts.twitter`, `expert_results[].summary`. */
function stripIndexes(path: string): string {
  return path.replace(/\[\d+\]/g, '[]');
}
