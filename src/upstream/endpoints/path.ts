/** A run or schedule id as one path segment (ids are UUIDs, but nothing from a caller is spliced raw). */
export function enc(id: string): string {
  return encodeURIComponent(id);
}
