/**
 * A cheap, deliberately high estimate of how many tokens a model's tokenizer makes of a text, for the
 * answer budget (./shape.ts). Running a real BPE tokenizer on every answer would load megabytes of
 * vocabulary into the server and cost milliseconds per answer; this counts pieces the way a BPE
 * pre-tokenizer splits them and charges each piece at least what o200k charges it:
 * - a word (letters, split where the case changes as the pre-tokenizer splits `aZqX` into `a`, `Zq`,
 *   `X`): one token per 4 letters, rounded up (common words are one token);
 * - a run of digits: one token per 3 digits (o200k never merges more);
 * - any other ASCII character but a space before a word: one token (JSON's `":"` merges, so this is
 *   high);
 * - a character outside ASCII: one token; three beyond the Basic Multilingual Plane (emoji, styled
 *   letters such as 𝓗, which take up to four bytes and as many tokens).
 * tests/mcp/results/answer-budget.test.ts checks it stays at or above o200k (gpt-tokenizer) on real answers
 * and on hostile text.
 */

const isUpper = (c: number) => c >= 65 && c <= 90;
const isLower = (c: number) => c >= 97 && c <= 122;
const isDigit = (c: number) => c >= 48 && c <= 57;

/**
 * One pass over the text's characters, no allocation (it runs on every answer): each piece is a word
 * (a space before it included; capitals then lower case, or capitals alone), a run of digits, or one
 * other character (a surrogate pair is one character).
 */
export function estimateTokens(text: string): number {
  const n = text.length;
  let tokens = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (isDigit(c)) {
      let end = i + 1;
      while (end < n && isDigit(text.charCodeAt(end))) end++;
      tokens += Math.ceil((end - i) / 3);
      i = end;
      continue;
    }
    const from = c === 32 ? i + 1 : i;
    let end = from;
    while (end < n && isUpper(text.charCodeAt(end))) end++;
    while (end < n && isLower(text.charCodeAt(end))) end++;
    if (end > from) {
      tokens += Math.ceil((end - from) / 4);
      i = end;
      continue;
    }
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < n && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    tokens += pair ? 3 : 1;
    i += pair ? 2 : 1;
  }
  return tokens;
}

/**
 * The most tokens estimateTokens gives one character (a surrogate pair, two characters, is three): a
 * text no longer than the budget allows at this rate fits without being counted.
 */
const MOST_TOKENS_PER_CHAR = 1.5;

/**
 * Whether the text's estimate is at most `maxTokens`: by its length alone when that settles it (most
 * answers are far below the budget, and this runs on every answer), else by counting.
 */
export function withinTokens(text: string, maxTokens: number): boolean {
  return text.length * MOST_TOKENS_PER_CHAR <= maxTokens || estimateTokens(text) <= maxTokens;
}
