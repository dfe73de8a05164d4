import { SERVER_INFO_META_KEY } from '@modelcontextprotocol/server';
import { toCallToolResult } from '../catalog/model-outcome.js';
import type { ToolOutcome } from '../catalog/types.js';
import { jobName } from '../tools/long-work.js';
import type { JobKind } from '../tools/types.js';

/**
 * A completed task's `result`: the CallToolResult the synchronous tools/call answers with on the
 * 2026-07-28 revision, `resultType` and the server's identity included (the SDK's encode step adds
 * both to every result), so a client handles it exactly as that answer.
 */
export function taskResult(
  outcome: ToolOutcome,
  serverInfo: { name: string; version: string },
): Record<string, unknown> {
  return {
    ...toCallToolResult(outcome),
    resultType: 'complete',
    _meta: { [SERVER_INFO_META_KEY]: serverInfo },
  };
}

/** A task's status message once its work ended: what it was and how it ended, for a person. */
export function endedMessage(kind: JobKind, jobId: string, outcome: ToolOutcome): string {
  const what = `${jobName(kind)} ${jobId}`;
  if (!outcome.ok) return `Ended with an error: ${outcome.text.split('. ')[0]}.`;
  const completed = (outcome.data as { completed?: unknown }).completed;
  return completed === false
    ? `Stopped waiting for ${what}; the result says how to read it later.`
    : `Done: ${what}.`;
}

/** A working task's status message: where the job stands, as the progress notifications say it. */
export function workingMessage(
  kind: JobKind,
  jobId: string,
  update: { percentage: number; phase: string; message: string },
): string {
  const pct = Math.round(Math.max(0, Math.min(100, update.percentage)));
  const detail = update.message ? `: ${update.message}` : '';
  return `${jobName(kind)} ${jobId} ${update.phase}, ${pct} %${detail}`;
}
