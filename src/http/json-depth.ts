/**
 * How deeply a JSON text nests, read before it is parsed. V8's JSON.parse takes about a second for an
 * 800 KB body of nested brackets, and every recursive reader after it (schema checks, comparisons,
 * JSON.stringify) can overflow the stack: a body nested deeper than any real request is refused before
 * any of that runs. One pass over the characters, strings skipped; nothing is allocated.
 */
export const MAX_JSON_DEPTH = 64;

export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22) {
      // A string: skip to its closing quote, over escaped characters.
      for (i++; i < length; i++) {
        const inner = text.charCodeAt(i);
        if (inner === 0x5c) i++;
        else if (inner === 0x22) break;
      }
    } else if (code === 0x5b || code === 0x7b) {
      if (++depth > max) return true;
    } else if (code === 0x5d || code === 0x7d) {
      depth--;
    }
  }
  return false;
}
