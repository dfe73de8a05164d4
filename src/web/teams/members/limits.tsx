import { ceilingWords } from '../../../teams/audit-words.js';
import type { MemberWithUsage } from '../../../teams/overview.js';
import { capitalised } from '../frame.js';

/** "1 credit-spending call", "12 credit-spending calls". */
export function creditCalls(n: number): string {
  return `${n.toLocaleString('en')} credit-spending call${n === 1 ? '' : 's'}`;
}

/** This month's credit-spending calls beside the cap: "3 of 10 credit-spending calls this month". */
export function capWords(m: Pick<MemberWithUsage, 'monthlyWriteCap' | 'writesThisMonth'>): string {
  if (m.monthlyWriteCap === null) return `No monthly cap · ${creditCalls(m.writesThisMonth)} this month`;
  return `Cap: ${m.writesThisMonth.toLocaleString('en')} of ${creditCalls(m.monthlyWriteCap)} used this month`;
}

/** A member's limits in words: permissions, the cap with this month's count, the webhook switch. */
export function MemberLimits({ m }: { m: MemberWithUsage }) {
  const full = m.monthlyWriteCap !== null && m.writesThisMonth >= m.monthlyWriteCap;
  return (
    <ul class="plain">
      <li>{capitalised(ceilingWords(m.maxScopes === null ? null : m.maxScopes.join(' ')))}</li>
      <li class={full ? 'warn-text' : undefined}>
        {capWords(m)}
        {full ? ' (reached)' : ''}
      </li>
      <li>{m.canChangeWebhook ? 'Can change team webhook' : 'Cannot change team webhook'}</li>
    </ul>
  );
}

/** The API user id in words: whose it is and where it came from. */
export function UserIdWords({ m }: { m: Pick<MemberWithUsage, 'upstreamUserId' | 'upstreamUserIdSet'> }) {
  return (
    <>
      <code>{m.upstreamUserId}</code>
      <span class="muted">
        {m.upstreamUserIdSet ? ' (set by an admin)' : ' (default, from their account)'}
      </span>
    </>
  );
}
