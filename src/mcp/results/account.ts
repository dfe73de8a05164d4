import { clip, typedFence } from './fence.js';
import { isRecord, num, plural, table, utcMinute } from './format.js';
import type { ResultOutput as ToolOutput } from './result-output.js';

/**
 * The account's webhook setup and usage, in words. Upstream's usage names expert searches `searches`
 * and keyword plus user searches `IQ searches` (they are its /api/iq endpoints): the words say which is
 * which. `structuredContent` keeps the record as upstream sent it. The account's name, the webhook URL
 * and upstream user ids were typed by people, so they sit inside the fence (./fence.ts).
 */

export function setupResult(setup: Record<string, unknown>, changed: boolean): ToolOutput {
  const url = typeof setup.return_url === 'string' && setup.return_url ? clip(setup.return_url, 300) : null;
  const typed = [
    typeof setup.name === 'string' ? `Account: ${clip(setup.name, 120)}` : '',
    url ? `Webhook URL: ${url}` : '',
  ].filter(Boolean);
  const said = url
    ? `The webhook URL ${changed ? 'is now' : 'is'} set: when a search completes, upstream POSTs its result there.`
    : 'No webhook URL is set, so completed searches are sent nowhere. update_integration_setup sets one.';
  return { data: setup, text: [said, typedFence(typed)].filter(Boolean).join('\n'), untrusted: true };
}

const n = (v: unknown) => (typeof v === 'number' ? v : Number(v) || 0);

/** "Usage in 2026-11: 4 searches: 1 expert search, 3 keyword or user searches (2 keyword, 1 user)." */
export function usageResult(
  record: Record<string, unknown>,
  period: string,
  callerUserId: string,
): ToolOutput {
  const users = Array.isArray(record.usage_by_user) ? record.usage_by_user.filter(isRecord) : [];
  const expert = n(record.searches_count);
  const iq = n(record.total_iq_searches_count);
  const keyword = users.reduce((sum, u) => sum + n(u.iq_keywords_searches_count), 0);
  const user = users.reduce((sum, u) => sum + n(u.iq_users_searches_count), 0);
  const split = users.length && keyword + user === iq ? ` (${num(keyword)} keyword, ${num(user)} user)` : '';
  const range =
    typeof record.period_start === 'string' && typeof record.period_end === 'string'
      ? ` (${record.period_start} to ${record.period_end})`
      : '';
  const lines = [
    `Searches created ${period}${range}: ${plural(expert, 'expert search', 'expert searches')} and ${plural(iq, 'keyword or user search', 'keyword or user searches')}${split}. Agent runs are not counted here.`,
  ];
  if (users.length) {
    lines.push(
      '',
      `Per upstream user${users.some((u) => u.user === callerUserId) ? ' ("you" is this connection\'s)' : ''}:`,
      typedFence([
        table(
          ['upstream user', 'expert searches', 'keyword searches', 'user searches', 'last search'],
          users.map((u) => [
            u.user === callerUserId ? `${clip(u.user, 60)} (you)` : clip(u.user ?? '?', 60),
            num(n(u.searches_count)),
            num(n(u.iq_keywords_searches_count)),
            num(n(u.iq_users_searches_count)),
            utcMinute(u.last_search),
          ]),
        ),
      ]),
    );
  }
  return { data: record, text: lines.join('\n'), untrusted: true };
}
