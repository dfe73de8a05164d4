import type { Context } from 'hono';
import { AUDIT_KINDS, type AuditFilterErrors, type AuditFilters, keyParam } from '../../../audit/filters.js';
import type { AuditPage as AuditPageRows, AuditRow } from '../../../audit/query.js';
import type { AppEnv, SessionUser } from '../../../http/env.js';
import { AUDIT_KIND_NAMES, describeAuditEvent, statusWords } from '../../../teams/audit-words.js';
import type { MemberEmail } from '../../../teams/member-emails.js';
import { Field, SelectField } from '../../kit/fields.js';
import { CardTable } from '../../kit/table.js';
import { Time } from '../../kit/time.js';
import { Frame, TeamHeader, type TeamNav, teamPath } from '../frame.js';

/** The query string of the current filters plus `extra` (a page's cursor, an export format). */
export function auditQuery(filters: AuditFilters, extra: Record<string, string>): string {
  const params = new URLSearchParams();
  if (filters.kind) params.set('kind', filters.kind);
  if (filters.userId) params.set('member', filters.userId);
  if (filters.tool) params.set('tool', filters.tool);
  if (filters.from) params.set('from', filters.from);
  if (filters.to) params.set('to', filters.to);
  for (const [k, v] of Object.entries(extra)) params.set(k, v);
  const q = params.toString();
  return q ? `?${q}` : '';
}

function durationWords(ms: number | null): string {
  if (ms === null) return '';
  return ms < 1000 ? ` in ${ms} ms` : ` in ${(ms / 1000).toFixed(1)} s`;
}

/**
 * The audit trail: who did what, as sentences with times in the reader's zone, people by email and
 * apps by name. The CSV and JSON exports keep the raw record (ids, codes, ISO times, detail).
 */
export function AuditPage(props: {
  c: Context<AppEnv>;
  user: SessionUser;
  ws: TeamNav;
  members: MemberEmail[];
  filters: AuditFilters;
  errors: AuditFilterErrors;
  page: AuditPageRows;
  retentionDays: number;
}) {
  const { ws, filters, errors } = props;
  const { rows, older, newer } = props.page;
  const base = teamPath(ws, '/audit');
  const emails = new Map(props.members.map((m) => [m.userId, m.email]));
  const nameOf = (userId: string) => emails.get(userId) ?? 'a former member';
  const who = (r: AuditRow) =>
    r.userEmail ? (
      <span class="token">{r.userEmail}</span>
    ) : r.userId ? (
      'A former member'
    ) : (
      'Nobody signed in'
    );
  const filtered = Boolean(filters.kind || filters.userId || filters.tool || filters.from || filters.to);
  const kinds = [...new Set<string>([...AUDIT_KINDS, ...(filters.kind ? [filters.kind] : [])])];
  return (
    <Frame c={props.c} user={props.user} title={`Audit trail of ${ws.name}`} localTimes>
      <TeamHeader ws={ws} current="audit" title={`Audit trail of ${ws.name}`} />
      <p class="muted">
        Tool calls and security events, newest first, with times in your time zone. Kept {props.retentionDays}{' '}
        days. Never holds tool arguments or tokens.
      </p>
      <details class="filters-box" open={filtered || Object.keys(errors).length > 0}>
        <summary>Filter the events{filtered ? ' (filters on)' : ''}</summary>
        <form method="get" action={base} class="filters" novalidate>
          <SelectField
            id="kind"
            name="kind"
            label="What"
            value={filters.kind ?? ''}
            error={errors.kind}
            options={[
              { value: '', label: 'Everything' },
              ...kinds.map((k) => ({ value: k, label: AUDIT_KIND_NAMES[k] ?? k.replaceAll('_', ' ') })),
            ]}
          />
          <SelectField
            id="member"
            name="member"
            label="Member"
            value={filters.userId ?? ''}
            options={[
              { value: '', label: 'Anyone' },
              ...props.members.map((m) => ({ value: m.userId, label: m.email })),
            ]}
          />
          <Field
            required={false}
            id="tool"
            name="tool"
            label="Tool"
            value={filters.tool ?? ''}
            error={errors.tool}
            hint="e.g. submit_keyword_search"
          />
          <Field
            required={false}
            id="from"
            name="from"
            label="From"
            type="date"
            value={filters.from ?? ''}
            error={errors.from}
          />
          <Field
            required={false}
            id="to"
            name="to"
            label="To"
            type="date"
            value={filters.to ?? ''}
            error={errors.to}
          />
          <div class="actions">
            <button type="submit">Filter</button>
            <a href={base}>Clear filters</a>
          </div>
        </form>
      </details>
      <p class="actions">
        <a href={`${base}${auditQuery(filters, { format: 'csv' })}`}>Download CSV</a>
        <a href={`${base}${auditQuery(filters, { format: 'json' })}`}>Download JSON</a>
        <span class="muted">(every matching event, with ids and ISO times)</span>
      </p>
      {errors.position ? <p class="notice">{errors.position}</p> : null}
      {rows.length ? (
        <CardTable
          title={1}
          caption="Audit events"
          rows={rows}
          columns={[
            { label: 'When', cell: (r) => <Time ms={r.at} /> },
            { label: 'Who', cell: who },
            { label: 'What happened', cell: (r) => describeAuditEvent(r, nameOf) },
            {
              label: 'App',
              cell: (r) =>
                r.clientName ? (
                  <span class="token">{r.clientName}</span>
                ) : r.clientId ? (
                  <span class="muted">an app no longer registered</span>
                ) : (
                  <span class="muted">none</span>
                ),
            },
            { label: 'Result', cell: (r) => `${statusWords(r.status)}${durationWords(r.durationMs)}` },
          ]}
        />
      ) : (
        <p>No events match these filters.</p>
      )}
      <nav aria-label="Pages" class="actions">
        {newer ? <a href={`${base}${auditQuery(filters, {})}`}>Newest events</a> : null}
        {newer ? (
          <a href={`${base}${auditQuery(filters, { after: keyParam(newer) })}`}>Newer events</a>
        ) : null}
        {older ? (
          <a href={`${base}${auditQuery(filters, { before: keyParam(older) })}`}>Older events</a>
        ) : null}
      </nav>
    </Frame>
  );
}
