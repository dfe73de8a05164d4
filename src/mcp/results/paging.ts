import { estimateTokens } from './tokens.js';

/**
 * Pages of a list that fit a token budget. A page ends at `limit` items or where the next item would
 * push the page past the budget (each item costs what `measure` says: its JSON, or its line), whichever comes first, and `next_offset` says where the next
 * page starts whenever anything is left: nothing is dropped silently. A page always holds at
 * least one item, so paging always moves on; one item bigger than the whole budget is left to the
 * result cap, which trims its longest string and reports it.
 */
export interface Page<T> {
  total: number;
  offset: number;
  limit: number;
  returned: number;
  /** Offset of the next page; absent on the last page. */
  next_offset?: number;
  items: T[];
  /** True when the budget, not `limit`, ended the page. */
  cutBySize: boolean;
}

/** Tokens kept aside in an answer for everything besides the page's items. */
export const PAGE_OVERHEAD_TOKENS = 600;

const jsonTokens = (item: unknown) => estimateTokens(JSON.stringify(item) ?? 'null');

export function pageWithin<T>(
  items: readonly T[],
  offset: number,
  limit: number,
  maxTokens: number,
  measure: (item: T) => number = jsonTokens,
): Page<T> {
  const budget = maxTokens - PAGE_OVERHEAD_TOKENS;
  const page: T[] = [];
  let tokens = 1;
  let cutBySize = false;
  for (let i = offset; i < items.length && page.length < limit; i++) {
    const size = measure(items[i] as T) + 1;
    if (page.length > 0 && tokens + size > budget) {
      cutBySize = true;
      break;
    }
    page.push(items[i] as T);
    tokens += size;
  }
  const end = offset + page.length;
  return {
    total: items.length,
    offset,
    limit,
    returned: page.length,
    ...(end < items.length ? { next_offset: end } : {}),
    items: page,
    cutBySize,
  };
}
