import type { Context } from 'hono';
import type { AppEnv, SessionUser } from '../../../http/env.js';
import type { MemberWithUsage } from '../../../teams/overview.js';
import type { UpstreamUsage } from '../../../teams/usage.js';
import { SelectField } from '../../kit/fields.js';
import { CardTable } from '../../kit/table.js';
import { Frame, TeamHeader, type TeamNav, teamPath } from '../frame.js';
import { CapsChart } from './caps-chart.js';
import { DailyCallsChart } from './daily-chart.js';
import type { DailySeries } from './series.js';

export interface ToolTotal {
  userEmail: string | null;
  tool: string;
  calls: number;
  failed: number;
}

/**
 * A workspace's usage (admins): calls per member per day and this month's credit-spending calls against
 * caps as pictures, the totals per member and tool, and the upstream account's own figures.
 */
export function UsagePage(props: {
  c: Context<AppEnv>;
  user: SessionUser;
  ws: TeamNav;
  days: number;
  daysOptions: readonly number[];
  daily: DailySeries;
  members: MemberWithUsage[];
  totals: ToolTotal[];
  upstream: UsageFromUpstream;
}) {
  const { ws } = props;
  const period = `the last ${props.days} days`;
  return (
    <Frame c={props.c} user={props.user} title={`Usage of ${ws.name}`}>
      <TeamHeader ws={ws} current="usage" title={`Usage of ${ws.name}`} />
      <form method="get" action={teamPath(ws, '/usage')} class="filters period">
        <SelectField
          id="days"
          name="days"
          label="Period"
          value={String(props.days)}
          options={props.daysOptions.map((d) => ({ value: String(d), label: `Last ${d} days` }))}
        />
        <div class="actions">
          <button type="submit" class="secondary">
            Show
          </button>
        </div>
      </form>

      <section aria-labelledby="daily-heading">
        <h2 id="daily-heading">Calls per member per day</h2>
        <DailyCallsChart series={props.daily} period={period} />
      </section>

      {ws.kind === 'team' ? (
        <section aria-labelledby="caps-heading">
          <h2 id="caps-heading">Credit-spending calls this month</h2>
          <p class="muted">
            Searches, agent runs, reruns and schedules started this calendar month (UTC), against each
            member’s monthly cap (set on their settings page).
          </p>
          <CapsChart members={props.members} />
        </section>
      ) : null}

      <section aria-labelledby="totals-heading">
        <h2 id="totals-heading">Tool calls per member and tool</h2>
        {props.totals.length ? (
          <CardTable
            title={0}
            caption={`Tool calls per member and tool, ${period}`}
            rows={props.totals}
            columns={[
              { label: 'Member', cell: (t) => t.userEmail ?? 'A former member' },
              { label: 'Tool', cell: (t) => t.tool },
              { label: 'Calls', cell: (t) => t.calls },
              { label: 'Not ok', cell: (t) => t.failed },
            ]}
          />
        ) : (
          <p>No tool calls in this period.</p>
        )}
      </section>

      <UpstreamFigures upstream={props.upstream} />
    </Frame>
  );
}

/** The upstream record and who each of its API user IDs is here. */
export interface UsageFromUpstream {
  usage: UpstreamUsage;
  memberByUpstreamId: Map<string, string>;
}

function UpstreamFigures({ upstream }: { upstream: UsageFromUpstream }) {
  const record = upstream.usage.ok ? upstream.usage.record : null;
  const byUser = Array.isArray(record?.usage_by_user)
    ? (record.usage_by_user as Array<Record<string, unknown>>)
    : [];
  return (
    <section aria-labelledby="upstream-heading">
      <h2 id="upstream-heading">The API account’s figures (last 12 months)</h2>
      {upstream.usage.ok ? (
        <>
          <dl class="facts">
            <dt>Searches</dt>
            <dd>{String(record?.searches_count ?? 0)}</dd>
            <dt>IQ searches</dt>
            <dd>{String(record?.total_iq_searches_count ?? 0)}</dd>
          </dl>
          {byUser.length ? (
            <CardTable
              caption="Searches per API user"
              rows={byUser}
              columns={[
                {
                  label: 'Member',
                  cell: (u) => {
                    const email = upstream.memberByUpstreamId.get(String(u.user ?? ''));
                    return email ? (
                      <span class="token">{email}</span>
                    ) : (
                      <span class="muted">Not a member here</span>
                    );
                  },
                },
                { label: 'API user ID', cell: (u) => <code>{String(u.user ?? '')}</code> },
                { label: 'Searches', cell: (u) => String(u.searches_count ?? 0) },
                { label: 'Last search', cell: (u) => String(u.last_search ?? '') },
              ]}
            />
          ) : null}
        </>
      ) : (
        <p class="notice warn" role="status">
          {upstream.usage.message}
        </p>
      )}
    </section>
  );
}
