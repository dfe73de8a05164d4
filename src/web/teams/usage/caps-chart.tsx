import type { MemberWithUsage } from '../../../teams/overview.js';
import { CardTable } from '../../kit/table.js';
import { creditCalls } from '../members/limits.js';

/**
 * Credit-spending calls this month against each member's cap: a table whose middle column draws the
 * figure as a bar (a small SVG, hidden from screen readers, which read the words beside it). All bars
 * share one scale, the largest cap or count, so members compare at a glance; the cap is the dark mark.
 */
export function CapsChart({ members }: { members: MemberWithUsage[] }) {
  const scale = Math.max(1, ...members.map((m) => Math.max(m.monthlyWriteCap ?? 0, m.writesThisMonth)));
  const at = (n: number) => (n / scale) * 100;
  return (
    <CardTable
      title={0}
      caption="Credit-spending calls this month against caps"
      rows={members}
      columns={[
        { label: 'Member', cell: (m) => <span class="token">{m.email}</span> },
        {
          label: 'This month',
          cell: (m) => {
            const reached = m.monthlyWriteCap !== null && m.writesThisMonth >= m.monthlyWriteCap;
            return (
              <div class="cap-cell">
                <svg
                  class="cap-bar"
                  viewBox="0 0 100 10"
                  preserveAspectRatio="none"
                  aria-hidden="true"
                  focusable="false"
                >
                  <rect class="cap-track" x="0" y="0" width="100" height="10" />
                  {m.monthlyWriteCap !== null ? (
                    <rect class="cap-room" x="0" y="0" width={at(m.monthlyWriteCap)} height="10" />
                  ) : null}
                  <rect
                    class={reached ? 'cap-used reached' : 'cap-used'}
                    x="0"
                    y="2"
                    width={at(m.writesThisMonth)}
                    height="6"
                  />
                  {m.monthlyWriteCap !== null ? (
                    <line
                      class="cap-mark"
                      x1={at(m.monthlyWriteCap)}
                      x2={at(m.monthlyWriteCap)}
                      y1="0"
                      y2="10"
                      vector-effect="non-scaling-stroke"
                    />
                  ) : null}
                </svg>
                <span>
                  {m.monthlyWriteCap === null
                    ? `${creditCalls(m.writesThisMonth)}, no cap`
                    : `${m.writesThisMonth.toLocaleString('en')} of ${m.monthlyWriteCap.toLocaleString('en')}${reached ? ' (cap reached)' : ''}`}
                </span>
              </div>
            );
          },
        },
      ]}
    />
  );
}
