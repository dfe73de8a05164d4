import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Logger } from '../../logger.js';
import { cleanDeep, fencedBlock, UNTRUSTED_NOTICE } from '../results/fence.js';
import { dropNulls } from '../results/format.js';
import { capResult, describeTruncation, type Shaped } from '../results/shape.js';
import { fitText } from '../results/text-budget.js';
import { estimateTokens } from '../results/tokens.js';
import type { ToolDef, ToolOutput } from '../tools/types.js';
import { type CredentialSource, errorMessage } from './tool-errors.js';
import type { ToolOutcome } from './types.js';

/**
 * A tool's output or failure as the model reads it, the same however the call ran (a tool call, a
 * resource read, a task finishing in the background): the token budget applied, the text composed, a
 * failure put in words.
 */

export function toCallToolResult(outcome: ToolOutcome): CallToolResult {
  if (!outcome.ok) return { content: [{ type: 'text', text: outcome.text }], isError: true };
  return {
    content: [{ type: 'text', text: outcome.text }, ...outcome.links],
    structuredContent: outcome.data,
  };
}

/**
 * The text block: the tool's markdown, what the token budget cut, and (for JSON answers) the JSON, inside
 * the untrusted-content fence when it holds user-generated content.
 */
function composeText(out: ToolOutput, shaped: Shaped, maxTokens: number): string {
  const parts = [out.text];
  const truncation = describeTruncation(shaped.truncated, maxTokens);
  if (truncation) parts.push(truncation);
  if (out.json) parts.push(out.untrusted ? fencedBlock(shaped.json, UNTRUSTED_NOTICE) : shaped.json);
  return parts.join('\n\n');
}

/**
 * A tool's output within the token budget, as an outcome. The budget holds for the text and for
 * `structuredContent` each: a client shows the model one or the other (or, for JSON answers, the text
 * carries the same JSON). A JSON answer's data is cut further until its text fits beside the prose.
 */
export function shapedOutcome(out: ToolOutput, maxTokens: number): ToolOutcome & { ok: true } {
  // User-generated content is cleaned once here, for every reader: the text's JSON, structuredContent,
  // resource reads and the views all take it from `data` (results/fence.ts says what cleaning does).
  const dropped = dropNulls(out.data) as Record<string, unknown>;
  const data = out.untrusted ? (cleanDeep(dropped) as Record<string, unknown>) : dropped;
  let shaped = capResult(data, maxTokens, out.rest);
  let text = composeText(out, shaped, maxTokens);
  // The text's estimate, once known, is handed to fitText rather than counted again.
  let textTokens: number | undefined;
  for (let round = 0; round < 4 && out.json; round++) {
    textTokens = estimateTokens(text);
    const over = textTokens - maxTokens;
    if (over <= 0) break;
    const dataTokens = shaped.tokens ?? estimateTokens(shaped.json);
    shaped = capResult(data, Math.max(0, dataTokens - over - 200), out.rest);
    text = composeText(out, shaped, maxTokens);
    textTokens = undefined;
  }
  return {
    ok: true,
    text: fitText(text, maxTokens, textTokens),
    data: shaped.data,
    json: shaped.json,
    links: out.links ?? [],
    untrusted: out.untrusted === true,
  };
}

/** A failure in at most three sentences a model can act on (./tool-errors.ts), as an outcome. */
export function failedOutcome(
  error: unknown,
  def: ToolDef,
  credentials: CredentialSource,
  logger: Logger,
): ToolOutcome & { ok: false } {
  const kind = (error as { kind?: unknown }).kind;
  if (typeof kind !== 'string') logger.error({ err: error, tool: def.name }, 'tool failed');
  return {
    ok: false,
    text: errorMessage(error, def, credentials),
    reason: typeof kind === 'string' ? kind : 'error',
  };
}
