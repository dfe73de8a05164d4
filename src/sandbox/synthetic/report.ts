import { SIGNAL_LABELS, URL_DOMAINS } from './pools.js';
import { Rng } from './prng.js';
import type { JsonObject } from './shapes.js';

export interface AgentReport {
  result: JsonObject;
  confidence: string;
  signalsCount: number;
  inputTokens: number;
  outputTokens: number;
  /** Internal searches the agent made; becomes credits_used (capped by the run's budget). */
  searches: number;
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Deterministic report: the same question, mode and window give the same report. */
export function agentReport(question: string, mode: string, timeWindow: string): AgentReport {
  const rng = new Rng(`agent|${question.trim().toLowerCase()}|${mode}|${timeWindow}`);
  const confidence = rng.pick(['low', 'medium', 'high'] as const);
  const signals = Array.from({ length: rng.int(2, 5) }, () => {
    const label = rng.pick(SIGNAL_LABELS);
    const severity = rng.pick(['low', 'medium', 'high'] as const);
    return {
      severity,
      label,
      description: `${label} observed in conversations about "${question.slice(0, 60)}" over the last ${timeWindow}.`,
    };
  });
  const links = Array.from(
    { length: rng.int(2, 5) },
    () => `https://${rng.pick(URL_DOMAINS)}/evidence/${rng.digits(8)}`,
  );
  const md = [
    `# ${mode === 'monitoring' ? 'Monitoring report' : mode === 'competitive_intel' ? 'Competitive intelligence' : 'Trend briefing'}`,
    '',
    `**Question:** ${question}`,
    '',
    `**Window:** ${timeWindow} · **Confidence:** ${confidence}`,
    '',
    '## Summary',
    '',
    `Across the platforms searched, discussion of this topic was ${rng.pick(['steady', 'rising', 'volatile', 'cooling'])}, ` +
      `with ${signals.length} notable signals. The evidence below links to representative posts.`,
    '',
    '## Signals',
    '',
    ...signals.map((s) => `- **${s.label}** (${s.severity}): ${s.description}`),
    '',
    '## Evidence',
    '',
    ...links.map((l) => `- <${l}>`),
    '',
  ].join('\n');
  const html = [
    `<h1>Report</h1>`,
    `<p><strong>Question:</strong> ${escapeHtml(question)}</p>`,
    `<p>Confidence: ${confidence}</p>`,
    '<ul>',
    ...signals.map(
      (s) => `<li><strong>${escapeHtml(s.label)}</strong> (${s.severity}): ${escapeHtml(s.description)}</li>`,
    ),
    '</ul>',
    '<ul>',
    ...links.map((l) => `<li><a href="${l}">${l}</a></li>`),
    '</ul>',
  ].join('\n');
  return {
    result: {
      confidence_level: confidence,
      signals,
      evidence_links: links,
      report_markdown: md,
      report_html: html,
    },
    confidence,
    signalsCount: signals.length,
    inputTokens: rng.int(20_000, 90_000),
    outputTokens: rng.int(2_000, 9_000),
    searches: rng.int(1, 4),
  };
}
