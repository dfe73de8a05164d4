import '../common/base.css';
import './style.css';
import DOMPurify from 'dompurify';
import { Marked } from 'marked';
import { type ToolResult, ViewBridge } from '../common/bridge.js';
import { el, isRecord, link, message, webUrl } from '../common/dom.js';
import { applyHostContext } from '../common/theme.js';

/**
 * An agent run (start_agent_run, get_agent_run): question, status, confidence, signals, evidence
 * links, and the markdown report rendered by marked and cleaned by DOMPurify. The report quotes posts
 * and the question, so it is untrusted: HTML written in it is shown as text (marked renders its
 * markdown, never its raw HTML), and what marked makes is still sanitized: scripts, styles, forms,
 * frames and images dropped (an image would be a request), only web and mail links kept.
 */
const view = document.getElementById('view') as HTMLElement;

const bridge = new ViewBridge(
  { name: 'social-intel-agent-run', version: '1.0.0' },
  { toolResult: show, hostContext: applyHostContext },
);
const open = (url: string) => void bridge.openLink(url).catch(() => {});

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

/** Markdown to HTML, where HTML in the markdown (block or inline) comes out as escaped text. */
const markdownRenderer = new Marked({
  async: false,
  gfm: true,
  renderer: { html: ({ text }) => escapeHtml(text) },
});

function reportHtml(markdown: string): DocumentFragment {
  const html = markdownRenderer.parse(markdown) as string;
  return DOMPurify.sanitize(html, {
    RETURN_DOM_FRAGMENT: true,
    FORBID_TAGS: [
      'img',
      'picture',
      'video',
      'audio',
      'source',
      'svg',
      'math',
      'style',
      'form',
      'input',
      'button',
      'iframe',
    ],
    FORBID_ATTR: ['style', 'class', 'id', 'srcset'],
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
  });
}

/** Links in the report open through the host, like every other link in the view. */
function wireLinks(root: ParentNode): void {
  for (const a of root.querySelectorAll('a')) {
    const url = webUrl(a.getAttribute('href'));
    if (!url) {
      a.removeAttribute('href');
      continue;
    }
    a.setAttribute('rel', 'noopener noreferrer');
    a.setAttribute('target', '_blank');
    a.addEventListener('click', (event) => {
      event.preventDefault();
      open(url);
    });
  }
}

function show(result: ToolResult): void {
  if (result.isError) {
    const text = (result.content ?? []).map((c) => c.text ?? '').join('\n');
    view.replaceChildren(message('problem', text || 'The tool answered with an error.'));
    return;
  }
  const run = result.structuredContent;
  if (!isRecord(run) || typeof run.run_id !== 'string') {
    view.replaceChildren(
      message(
        'problem',
        'This view draws agent runs, and this result is not one. The text answer has everything it holds.',
      ),
    );
    return;
  }
  const status = str(run.status) ?? 'pending';
  const outcome = isRecord(run.result) ? run.result : null;
  const confidence = str(outcome?.confidence_level) ?? str(run.confidence_level);
  const nodes: Node[] = [
    el('h1', {}, str(run.question) ?? 'Agent run'),
    el(
      'p',
      { class: 'meta' },
      [`Agent run ${run.run_id}`, status, str(run.mode), str(run.time_window)].filter(Boolean).join(' · '),
      ' ',
      confidence ? el('span', { class: `badge ${confidence}` }, `confidence ${confidence}`) : null,
    ),
  ];
  const progress = isRecord(run.progress) ? run.progress : null;
  if (!outcome) {
    const pct = typeof progress?.percentage === 'number' ? `${progress.percentage}%` : '';
    const phase = str(progress?.step_label) ?? str(progress?.phase) ?? '';
    nodes.push(
      status === 'failed'
        ? message('problem', `The run failed: ${str(run.error) ?? 'no reason given'}.`)
        : message(
            'note',
            `No report yet: ${[status, pct, phase].filter(Boolean).join(', ')}. Ask for the run again later.`,
          ),
    );
  }
  const signals = Array.isArray(outcome?.signals) ? outcome.signals.filter(isRecord) : [];
  if (signals.length) {
    nodes.push(
      el('h2', {}, 'Signals'),
      el(
        'ul',
        { class: 'plain signals' },
        ...signals.map((s) => {
          const severity = str(s.severity) ?? 'unknown';
          return el(
            'li',
            {},
            el('span', { class: `badge ${severity}` }, severity),
            ' ',
            el('strong', {}, str(s.label) ?? ''),
            str(s.description) ? el('p', { class: 'description' }, str(s.description)) : null,
          );
        }),
      ),
    );
  }
  const markdown = str(outcome?.report_markdown);
  if (markdown) {
    const report = el('article', { class: 'report' });
    report.appendChild(reportHtml(markdown));
    wireLinks(report);
    nodes.push(el('h2', {}, 'Report'), report);
  }
  const evidence = Array.isArray(outcome?.evidence_links)
    ? outcome.evidence_links.map(webUrl).filter(Boolean)
    : [];
  // The report lists its evidence itself; the list stands alone only when there is no report.
  if (evidence.length && !markdown) {
    nodes.push(
      el('h2', {}, 'Evidence'),
      el(
        'ul',
        { class: 'evidence' },
        ...evidence.map((url) => el('li', {}, link(url as string, url as string, open))),
      ),
    );
  }
  const usage = isRecord(run.usage) ? run.usage : null;
  // usage.available_credits is the run's budget, not the account's balance.
  if (usage && typeof usage.credits_used === 'number') {
    const budget =
      typeof usage.available_credits === 'number' ? ` of its ${usage.available_credits}-credit budget` : '';
    nodes.push(
      el(
        'p',
        { class: 'note' },
        `${usage.credits_used} credit${usage.credits_used === 1 ? '' : 's'} spent${budget}.`,
      ),
    );
  }
  view.replaceChildren(...nodes);
}

bridge.connect().catch((error: Error) => {
  view.replaceChildren(message('problem', `No host answered: ${error.message}`));
});
