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
 * tests/mcp/answer-budget.test.ts checks it stays at or above o200k (gpt-tokenizer) on real answers
 * and on hostile text.
 */

/** Words (a space before one included) split at case changes, digit runs, any other character. */
const PIECES = / ?[A-Z]*[a-z]+| ?[A-Z]+|[0-9]+|./gsu;

export function estimateTokens(text: string): number {
  let tokens = 0;
  for (const match of text.matchAll(PIECES)) {
    const piece = match[0];
    const c = piece.charCodeAt(piece.length - 1);
    if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) tokens += Math.ceil(piece.trimStart().length / 4);
    else if (c >= 48 && c <= 57) tokens += Math.ceil(piece.length / 3);
    else tokens += piece.length === 2 ? 3 : 1;
  }
  return tokens;
}
