import { estimateTokens, withinTokens } from './tokens.js';

/**
 * The last guard of the answer budget: a text still over it (a long report upstream wrote) is cut
 * at a line, says so, and keeps its untrusted-content fence closed. Answers are built to fit (pages
 * size themselves, JSON is trimmed by ./shape.ts), so this rarely runs.
 */

const OPEN = '<untrusted-content>';
const CLOSE = '</untrusted-content>';

/** `tokens`: the text's estimate when the caller has it already (a long answer's scan is not repeated). */
export function fitText(text: string, maxTokens: number, tokens?: number): string {
  if (tokens === undefined ? withinTokens(text, maxTokens) : tokens <= maxTokens) return text;
  const note = `(Answer cut here to fit ${maxTokens.toLocaleString('en-US')} tokens.)`;
  const room = maxTokens - estimateTokens(note) - estimateTokens(CLOSE) - 4;
  const kept: string[] = [];
  let used = 0;
  for (const line of text.split('\n')) {
    const cost = estimateTokens(line) + 1;
    if (used + cost > room) {
      // One line longer than what is left (a paragraph): its start, cut at a code point.
      const chars = Array.from(line);
      const share = Math.floor((chars.length * (room - used)) / cost);
      if (share > 0) kept.push(`${chars.slice(0, share).join('')}…`);
      break;
    }
    kept.push(line);
    used += cost;
  }
  const body = kept.join('\n');
  // Cleaned text holds no fence tag (./fence.ts), so counting them says whether one is open.
  const open = body.split(OPEN).length - body.split(CLOSE).length;
  return [body, ...(open > 0 ? [CLOSE] : []), note].join('\n');
}
