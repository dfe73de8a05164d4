import { clip, typedFence } from './fence.js';
import { isRecord, num, plural, table, utcMinute } from './format.js';
import type { ResultOutput as ToolOutput } from './result-output.js';

/**
 * Lists of searches and agent runs for the model: a sentence saying how many and which page, then a
 * compact markdown table of what tells the items apart (no field that is the same on every row, no
 * internal ids beyond the one to call with); `structuredContent` keeps every field upstream sent. The
 * tables hold what people typed (queries, handles, questions, labels), so they sit inside the fence.
 */

const SEARCH_LABEL = { keyword: 'keyword search', user: 'user search', expert: 'expert search' } as const;
const SEARCH_GET = {
  keyword: 'get_keyword_search',
  user: 'get_user_search',
  expert: 'get_expert_search',
} as const;

/** One page of keyword, user or expert searches (`items` as upstream listed them). */
export function searchListOutput(
  kind: keyof typeof SEARCH_LABEL,
  data: Record<string, unknown>,
  items: readonly unknown[],
  page: number,
): ToolOutput {
  const rows = items.filter(isRecord);
  const total = typeof data.total === 'number' ? data.total : undefined;
  const label = SEARCH_LABEL[kind];
  const count = `${plural(rows.length, label, `${label}es`)} (page ${num(page)}${total !== undefined ? `; ${num(total)} in all` : ''})`;
  if (rows.length === 0) return { data, text: `No ${label}es on page ${num(page)}.` };
  const more = total !== undefined && page * 100 < total ? ` Next page: page ${page + 1}.` : '';
  const text = [
    `${count}, newest first. Read one with ${SEARCH_GET[kind]} and its id.${more}`,
    '',
    typedFence([
      table(
        ['id', kind === 'user' ? 'handle' : 'query', 'status', 'created'],
        rows.map((s) => [
          String(s.id),
          clip(s.query ?? '', 120),
          String(s.status ?? '?'),
          utcMinute(s.created_at),
        ]),
      ),
    ]),
  ].join('\n');
  return { data, text, untrusted: true };
}

/**
 * A page of agent runs: id, status, when, confidence, question, and the label and pin only where a run
 * has them. The upstream user a run belongs to is named only when it is not the caller.
 */
export function runListOutput(
  data: Record<string, unknown>,
  runs: readonly unknown[],
  callerUserId: string,
): ToolOutput {
  const rows = runs.filter(isRecord);
  const total = typeof data.total === 'number' ? data.total : rows.length;
  const offset = typeof data.offset === 'number' ? data.offset : 0;
  if (rows.length === 0)
    return {
      data,
      text: `No agent runs${offset ? ` from offset ${num(offset)}` : ''} (${num(total)} in all).`,
    };
  const others = rows.some(
    (r) => typeof r.service_user_id === 'string' && r.service_user_id !== callerUserId,
  );
  const labelled = rows.some(
    (r) => r.pinned === true || (typeof r.label === 'string' && r.label !== r.question),
  );
  const head = ['run id', 'status', 'created', 'confidence', 'question'];
  if (labelled) head.push('label');
  if (others) head.push('user');
  const body = rows.map((r) => {
    const cells = [
      String(r.id),
      [r.status, r.error && r.status === 'failed' ? clip(r.error, 60) : null].filter(Boolean).join(': '),
      utcMinute(r.created_at),
      typeof r.confidence_level === 'string' ? r.confidence_level : '',
      clip(r.question ?? '', 140),
    ];
    if (labelled) {
      const label = typeof r.label === 'string' && r.label !== r.question ? clip(r.label, 60) : '';
      cells.push([r.pinned === true ? 'pinned' : '', label].filter(Boolean).join(', '));
    }
    if (others) cells.push(r.service_user_id === callerUserId ? 'you' : clip(r.service_user_id ?? '', 60));
    return cells;
  });
  const shown = `${num(offset + 1)}–${num(offset + rows.length)} of ${num(total)}`;
  const more = offset + rows.length < total ? ` Next: offset ${num(offset + rows.length)}.` : '';
  return {
    data,
    text: [
      `Agent runs ${shown}, newest first; get_agent_run reads one.${more}`,
      '',
      typedFence([table(head, body)]),
    ].join('\n'),
    untrusted: true,
  };
}
