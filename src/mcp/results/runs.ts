import type { RunRecord } from '../../upstream/schemas.js';
import { clip, fencedBlock, typedFence, WRITTEN_FROM_POSTS_NOTICE } from './fence.js';
import { isRecord, num, plural, withoutNulls } from './format.js';
import { link, reportUri, runUri } from './links.js';
import type { Detail, ResultOutput as ToolOutput } from './result-output.js';

export function isTerminal(status: string): boolean {
  return status === 'completed' || status === 'failed';
}

/** "high 1, low 2" from the signals' severities. */
function severities(signals: unknown[]): string {
  const counts = new Map<string, number>();
  for (const s of signals) {
    const severity = isRecord(s) && typeof s.severity === 'string' ? s.severity : 'unrated';
    counts.set(severity, (counts.get(severity) ?? 0) + 1);
  }
  return [...counts.entries()].map(([k, v]) => `${v} ${k}`).join(', ');
}

/**
 * The short header over an agent report: status, confidence, signals, credits; then the question (and
 * label) inside the fence, as a person typed them (./fence.ts, TYPED_NOTICE).
 */
export function runHeader(record: RunRecord): string {
  const result = isRecord(record.result) ? record.result : {};
  const usage = isRecord(record.usage) ? record.usage : {};
  const r = record as Record<string, unknown>;
  const facts: string[] = [];
  if (record.status === 'completed') {
    const signals = Array.isArray(result.signals) ? result.signals : [];
    facts.push(`confidence ${String(result.confidence_level ?? r.confidence_level ?? 'unknown')}`);
    facts.push(`${plural(signals.length, 'signal')}${signals.length ? ` (${severities(signals)})` : ''}`);
    // usage.available_credits is the budget the run was given (1–4), not what the account has left.
    if (usage.credits_used !== undefined) {
      const budget =
        usage.available_credits !== undefined ? ` of its ${num(usage.available_credits)}-credit budget` : '';
      facts.push(`${plural(Number(usage.credits_used), 'credit')} spent${budget}`);
    }
  } else if (record.status === 'running' && record.progress) {
    const p = record.progress;
    facts.push(
      `${num(p.percentage ?? 0)}%${p.phase ? `, ${p.phase}` : ''}${p.step_label ? `: ${clip(p.step_label, 120)}` : ''}`,
    );
  } else if (record.status === 'failed' && record.error) {
    facts.push(
      `error: ${clip(typeof record.error === 'string' ? record.error : JSON.stringify(record.error), 300)}`,
    );
  } else if (record.status === 'waiting') {
    facts.push('the search backend is temporarily unavailable; the run resumes automatically');
  }
  const how = [r.mode, r.time_window].filter((x) => typeof x === 'string').join(', ');
  if (how) facts.push(how);
  const typed = [`Question: ${clip(record.question ?? '', 500)}`];
  if (typeof r.label === 'string' && r.label.trim() && r.label !== record.question)
    typed.push(`Label: ${clip(r.label, 200)}`);
  return [
    `Agent run ${record.id}: ${record.status}${facts.length ? ` · ${facts.join(' · ')}` : ''}.`,
    typedFence(typed),
  ].join('\n');
}

/**
 * An agent run for the model: the report as markdown under its header (not an escaped JSON string),
 * inside the untrusted-content fence (upstream writes it from social posts); `structuredContent` the
 * record without report_html (the markdown says the same). `detail: "full"`: the complete record but
 * report_html, as fenced JSON after the header.
 */
export function runOutput(record: RunRecord, opts: { detail: Detail; nextStep?: string }): ToolOutput {
  const completed = isTerminal(record.status);
  const data: Record<string, unknown> = {
    ...withoutNulls({ run_id: record.id, completed, next_step: opts.nextStep, detail: opts.detail }),
    ...withoutNulls(record as Record<string, unknown>),
  };
  // report_html is left out, also from `detail: "full"`: it is report_markdown rendered to HTML by
  // upstream, and HTML written from strangers' posts is not passed on (the markdown says the same).
  if (isRecord(record.result)) {
    const { report_html: _html, ...rest } = record.result;
    data.result = rest;
  }
  const links =
    record.status === 'completed'
      ? [
          link(reportUri(record.id), `agent run ${record.id} report`, 'text/markdown'),
          link(runUri(record.id), `agent run ${record.id}`, 'text/markdown'),
        ]
      : [];
  const parts = [runHeader(record)];
  if (opts.nextStep) parts.push(opts.nextStep);
  if (opts.detail === 'full') return { data, text: parts.join('\n'), json: true, untrusted: true, links };
  const report = isRecord(record.result) ? record.result.report_markdown : undefined;
  if (typeof report === 'string' && report.trim())
    parts.push('', fencedBlock(report.trim(), WRITTEN_FROM_POSTS_NOTICE));
  else if (record.status === 'failed') parts.push('rerun_agent_run can start it again.');
  return { data, text: parts.join('\n'), untrusted: true, links };
}
