/**
 * Pages of a list that fit a byte budget. A page ends at `limit` items or where the next item would
 * push the page's JSON past the budget, whichever comes first, and `next_offset` says where the next
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

/** Bytes kept aside in a result for everything besides the page's items. */
export const PAGE_OVERHEAD_BYTES = 2_048;

export function pageWithin<T>(items: readonly T[], offset: number, limit: number, maxBytes: number): Page<T> {
  const budget = maxBytes - PAGE_OVERHEAD_BYTES;
  const page: T[] = [];
  let bytes = 2;
  let cutBySize = false;
  for (let i = offset; i < items.length && page.length < limit; i++) {
    const size = Buffer.byteLength(JSON.stringify(items[i]) ?? 'null', 'utf8') + 1;
    if (page.length > 0 && bytes + size > budget) {
      cutBySize = true;
      break;
    }
    page.push(items[i] as T);
    bytes += size;
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
