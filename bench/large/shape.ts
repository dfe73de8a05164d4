/**
 * The shape of a year of a busy deployment, as rows: people, teams (one of about 500,000 audit events,
 * one tiny), clients, grants with their tokens, audit events, and what a week without housekeeping
 * leaves behind (expired tokens and codes, lapsed and revoked grants, idle clients, audit rows past
 * the retention, expired sessions and consent decisions). Every row is a pure function of its index
 * and the scale, so the SQLite and PostgreSQL writers (generate.ts) produce the same database and
 * the bench knows its tokens without reading them back.
 */
import { hashToken } from '../../src/security/tokens.js';

export const DAY = 24 * 3600 * 1000;
/** Days of history; those past RETENTION_DAYS are what the audit purge deletes. */
const HISTORY_DAYS = 372;
/** Days housekeeping has not run: the backlog a full pass clears. */
const BACKLOG_DAYS = 7;

export interface Shape {
  scale: number;
  now: number;
  people: number;
  teams: number;
  clients: number;
  /** Clients idle past their expiry with no grant (the client purge's share). */
  idleClients: number;
  grants: number;
  events: number;
  bigTeamEvents: number;
  bigTeamMembers: number;
  tinyTeamEvents: number;
  sessions: number;
  codes: number;
  decisions: number;
  /** Grants of the bench client (one refresh chain per connection, per round). */
  benchClientGrants: number;
}

export function shapeOf(scale: number, now: number): Shape {
  const at = (n: number, min: number) => Math.max(min, Math.round(n * scale));
  return {
    scale,
    now,
    people: at(100_000, 200),
    teams: at(10_000, 12),
    clients: at(50_000, 400),
    idleClients: at(2_500, 5),
    grants: at(1_000_000, 30_000),
    events: at(5_000_000, 10_000),
    bigTeamEvents: at(500_000, 1_000),
    bigTeamMembers: at(2_000, 20),
    tinyTeamEvents: 247,
    sessions: at(150_000, 300),
    codes: at(20_000, 40),
    decisions: at(20_000, 40),
    benchClientGrants: 200,
  };
}

/** A fraction in [0, 1) fixed by (i, salt): the shape's only randomness. */
export function unit(i: number, salt: number): number {
  let h = Math.imul(i ^ Math.imul(salt, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 2 ** 32;
}

/** A UUID-shaped id, so indexes hold keys of the production size. */
export function uuid(kind: number, n: number): string {
  return `${kind.toString(16).padStart(8, '0')}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

export const userId = (n: number) => uuid(1, n);
export const personalId = (n: number) => uuid(2, n);
export const teamId = (k: number) => uuid(3, k);
export const clientId = (c: number) => uuid(4, c);
const grantId = (g: number) => uuid(5, g);

/** Known tokens: the bench presents them (the database holds only their hashes). */
export const accessToken = (g: number) => `sim_at_bench${g.toString(36).padStart(38, '0')}`;
export const refreshToken = (g: number) => `sim_rt_bench${g.toString(36).padStart(38, '0')}`;
const rotatedToken = (g: number) => `sim_rt_rotated${g.toString(36).padStart(36, '0')}`;

export const BIG_TEAM = 0;
export const TINY_TEAM = 1;

/** The team a person belongs to (besides their personal workspace), and their role in it. */
export function teamOf(s: Shape, n: number): { team: number; role: 'owner' | 'admin' | 'member' } | null {
  if (n < s.bigTeamMembers) return { team: BIG_TEAM, role: n === 0 ? 'owner' : n === 1 ? 'admin' : 'member' };
  const tiny = n - s.bigTeamMembers;
  if (tiny < 3) return { team: TINY_TEAM, role: tiny === 0 ? 'owner' : 'member' };
  const rest = n - s.bigTeamMembers - 3;
  const others = s.teams - 2;
  return { team: 2 + (rest % others), role: rest < others ? 'owner' : 'member' };
}

/** The tiny team's owner, who reads its trail in the bench. */
export const tinyTeamOwner = (s: Shape) => s.bigTeamMembers;
/** Browser sessions of the big team's owner (0) and the tiny team's (1), for the audit pages. */
export const sessionToken = (i: 0 | 1) => `sim_ss_benchowner${i}`;

export type Row = (string | number | boolean | null)[];
export interface TableRows {
  table: string;
  columns: string[];
  count: number;
  row(i: number): Row;
}

const TOOLS = [
  'submit_keyword_search',
  'get_keyword_search',
  'list_keyword_searches',
  'submit_user_search',
  'get_user_search',
  'submit_expert_search',
  'get_expert_search',
  'run_agent',
  'get_agent_run',
  'list_schedules',
  'create_schedule',
  'update_integration_setup',
];
const TEAM_KINDS = [
  'grant_created',
  'grant_revoked',
  'invite_created',
  'invite_accepted',
  'member_policy_changed',
];

function people(s: Shape): TableRows[] {
  const created = (n: number) => s.now - HISTORY_DAYS * DAY + Math.floor(unit(n, 1) * HISTORY_DAYS * DAY);
  const memberships: Row[] = [];
  for (let n = 0; n < s.people; n++) {
    const t = teamOf(s, n);
    if (t) memberships.push([teamId(t.team), userId(n), t.role, null, null, null, null, created(n)]);
  }
  return [
    {
      table: 'users',
      columns: ['id', 'email', 'password_hash', 'created_at', 'updated_at', 'disabled_at'],
      count: s.people,
      row: (n) => [userId(n), `person-${n}@bench.example`, '$argon2id$bench', created(n), created(n), null],
    },
    {
      table: 'workspaces',
      columns: ['id', 'name', 'kind', 'members_read_team_work', 'created_at', 'updated_at'],
      count: s.people + s.teams,
      row: (i) =>
        i < s.people
          ? [personalId(i), 'Personal', 'personal', true, created(i), created(i)]
          : [teamId(i - s.people), `Team ${i - s.people}`, 'team', true, s.now - HISTORY_DAYS * DAY, s.now],
    },
    {
      table: 'workspace_members',
      columns: [
        'workspace_id',
        'user_id',
        'role',
        'upstream_user_id',
        'max_scopes',
        'monthly_write_cap',
        'can_change_webhook',
        'created_at',
      ],
      count: s.people + memberships.length,
      row: (i) =>
        i < s.people
          ? [personalId(i), userId(i), 'owner', null, null, null, null, created(i)]
          : (memberships[i - s.people] as Row),
    },
  ];
}

function clients(s: Shape): TableRows {
  return {
    table: 'oauth_clients',
    columns: [
      'id',
      'kind',
      'secret_hash',
      'token_endpoint_auth_method',
      'client_name',
      'client_uri',
      'logo_uri',
      'redirect_uris',
      'grant_types',
      'response_types',
      'application_type',
      'scope',
      'metadata',
      'created_at',
      'last_used_at',
      'expires_at',
    ],
    count: s.clients,
    row: (c) => {
      // The last idleClients have no grant and expired days ago; a tenth of the rest expired too.
      const idle = c >= s.clients - s.idleClients;
      const expired = idle || unit(c, 2) < 0.1;
      const expiresAt = expired ? s.now - Math.ceil(unit(c, 3) * 20 * DAY) : s.now + 20 * DAY;
      const metadata = JSON.stringify({
        client_name: `Bench app ${c}`,
        redirect_uris: ['http://127.0.0.1/callback'],
      });
      return [
        clientId(c),
        'dcr',
        null,
        'none',
        `Bench app ${c}`,
        null,
        null,
        '["http://127.0.0.1/callback"]',
        '["authorization_code","refresh_token"]',
        '["code"]',
        'native',
        null,
        metadata,
        s.now - HISTORY_DAYS * DAY,
        expiresAt - 30 * DAY,
        expiresAt,
      ];
    },
  };
}

/** What happened to grant g: most are in use, some lapsed (all tokens long expired), a few revoked. */
function grantFate(g: number): 'live' | 'lapsed' | 'revoked' {
  const u = unit(g, 4);
  return u < 0.07 ? 'lapsed' : u < 0.08 ? 'revoked' : 'live';
}

export function grantOwner(s: Shape, g: number) {
  const user = g % s.people;
  const k = Math.floor(g / s.people);
  const team = teamOf(s, user);
  const workspace = k % 2 === 1 && team ? teamId(team.team) : personalId(user);
  // Bench-client grants first (distinct people, one client); then ten clients a person at most.
  const client = g < s.benchClientGrants ? 0 : 1 + ((user * 13 + k) % (s.clients - s.idleClients - 1));
  return { user, workspace, client };
}

/** Whether grant g is live (its refresh token works). */
export const grantIsLive = (g: number) => grantFate(g) === 'live';
/**
 * Whether grant g's access token is valid: half the live grants' are (the rest expired hours ago).
 * Valid ones last two days rather than an hour, so a database generated today serves the bench later.
 */
export const accessTokenValid = (g: number) => grantIsLive(g) && unit(g, 9) < 0.5;

function grants(s: Shape): TableRows[] {
  const createdAt = (g: number) =>
    grantFate(g) === 'live'
      ? s.now - Math.floor(unit(g, 5) * (HISTORY_DAYS - BACKLOG_DAYS) * DAY) - DAY
      : s.now - (40 + Math.floor(unit(g, 5) * 300)) * DAY;
  const revokedAt = (g: number) => s.now - Math.floor(unit(g, 6) * (BACKLOG_DAYS + 1) * DAY);
  const scopes = 'search:read search:write agent:run';
  // Tokens: live grants hold an access token, their refresh token and a fifth a rotated one; lapsed
  // grants the same pair, expired 1-8 days ago; revoked grants the pair, revoked with the grant.
  const tokenOf = (i: number): Row => {
    const g = i < s.grants ? i : i < 2 * s.grants ? i - s.grants : (i - 2 * s.grants) * 5;
    const fate = grantFate(g);
    const kind = i < s.grants || i >= 2 * s.grants ? 'refresh' : 'access';
    const hash = hashToken(
      i < s.grants ? refreshToken(g) : i < 2 * s.grants ? accessToken(g) : rotatedToken(g),
    );
    const lapsedAt = s.now - DAY - Math.floor(unit(g, 7) * BACKLOG_DAYS * DAY);
    const issued =
      fate === 'lapsed'
        ? lapsedAt - (kind === 'access' ? 3600_000 : 30 * DAY)
        : s.now - Math.floor(unit(g, 8) * 20 * DAY);
    const expiresAt =
      fate === 'lapsed'
        ? lapsedAt
        : kind === 'access'
          ? accessTokenValid(g)
            ? s.now + 2 * DAY
            : s.now - Math.floor(unit(g, 10) * 20 * 3600_000)
          : issued + 30 * DAY;
    const rotatedAt = i >= 2 * s.grants ? issued + 3600_000 : null;
    return [
      hash,
      grantId(g),
      uuid(6, g),
      kind,
      null,
      issued,
      expiresAt,
      rotatedAt,
      null,
      fate === 'revoked' ? revokedAt(g) : null,
    ];
  };
  return [
    {
      table: 'oauth_grants',
      columns: [
        'id',
        'user_id',
        'workspace_id',
        'client_id',
        'scopes',
        'resource',
        'created_at',
        'last_used_at',
        'revoked_at',
        'revoked_reason',
      ],
      count: s.grants,
      row: (g) => {
        const o = grantOwner(s, g);
        const revoked = grantFate(g) === 'revoked';
        return [
          grantId(g),
          userId(o.user),
          o.workspace,
          clientId(o.client),
          scopes,
          'https://bench.example/mcp',
          createdAt(g),
          null,
          revoked ? revokedAt(g) : null,
          revoked ? 'user' : null,
        ];
      },
    },
    {
      table: 'oauth_tokens',
      columns: [
        'token_hash',
        'grant_id',
        'family_id',
        'kind',
        'scopes',
        'created_at',
        'expires_at',
        'rotated_at',
        'grace_used_at',
        'revoked_at',
      ],
      // Two per grant, and a rotated refresh token for every fifth grant.
      count: 2 * s.grants + Math.ceil(s.grants / 5),
      row: tokenOf,
    },
  ];
}

function shortLived(s: Shape): TableRows[] {
  const spread = (i: number, salt: number) => s.now - Math.floor(unit(i, salt) * (BACKLOG_DAYS + 1) * DAY);
  return [
    {
      table: 'oauth_codes',
      columns: [
        'code_hash',
        'client_id',
        'user_id',
        'workspace_id',
        'redirect_uri',
        'redirect_uri_sent',
        'code_challenge',
        'scopes',
        'resource',
        'created_at',
        'expires_at',
        'used_at',
        'grant_id',
        'family_id',
      ],
      count: s.codes,
      row: (i) => {
        const created = spread(i, 11);
        const user = i % s.people;
        return [
          hashToken(`sim_ac_bench${i}`),
          clientId(1),
          userId(user),
          personalId(user),
          'http://127.0.0.1/callback',
          true,
          'x'.repeat(43),
          'search:read',
          'https://bench.example/mcp',
          created,
          created + 60_000,
          created + 2_000,
          null,
          null,
        ];
      },
    },
    {
      table: 'sessions',
      columns: ['id_hash', 'user_id', 'created_at', 'last_seen_at', 'expires_at', 'user_agent'],
      count: s.sessions,
      row: (i) => {
        if (i < 2) {
          const owner = i === 0 ? 0 : tinyTeamOwner(s);
          return [
            hashToken(sessionToken(i === 0 ? 0 : 1)),
            userId(owner),
            s.now,
            s.now,
            s.now + 2 * DAY,
            'bench',
          ];
        }
        const created = s.now - Math.floor(unit(i, 12) * 40 * DAY);
        const seen = Math.min(s.now, created + Math.floor(unit(i, 13) * 20 * DAY));
        return [
          hashToken(`sim_ss_bench${i}`),
          userId(i % s.people),
          created,
          seen,
          Math.min(seen + 14 * DAY, created + 30 * DAY),
          'Mozilla/5.0 (bench)',
        ];
      },
    },
    {
      table: 'oauth_decisions',
      columns: ['id', 'user_id', 'answer_sealed', 'created_at', 'expires_at'],
      count: s.decisions,
      row: (i) => {
        const created = spread(i, 14);
        return [uuid(7, i), userId(i % s.people), null, created, created + 10 * 60_000];
      },
    },
  ];
}

/** Audit events, oldest first (ids grow with time, as they do when written). */
function audit(s: Shape): TableRows {
  const start = s.now - HISTORY_DAYS * DAY;
  const step = (HISTORY_DAYS * DAY) / s.events;
  const bigShare = s.bigTeamEvents / s.events;
  const tinyEvery = Math.floor(s.events / s.tinyTeamEvents);
  const bigMember = (i: number) => Math.floor(unit(i, 21) * s.bigTeamMembers);
  return {
    table: 'audit_events',
    columns: [
      'id',
      'at',
      'kind',
      'workspace_id',
      'user_id',
      'client_id',
      'tool',
      'status',
      'duration_ms',
      'detail',
    ],
    count: s.events,
    row: (i) => {
      const at = Math.floor(start + i * step);
      const u = unit(i, 20);
      const id = i + 1;
      const tool = TOOLS[Math.floor(unit(i, 22) * TOOLS.length)] as string;
      const status = unit(i, 23) < 0.95 ? 'ok' : 'error';
      const duration = Math.floor(unit(i, 24) * 2_000);
      const client = clientId(1 + Math.floor(unit(i, 25) * (s.clients - s.idleClients - 1)));
      if (i % tinyEvery === 0 && i / tinyEvery < s.tinyTeamEvents) {
        const member = userId(s.bigTeamMembers + (i % 3));
        return [id, at, 'tool_call', teamId(TINY_TEAM), member, client, tool, status, duration, null];
      }
      if (u < bigShare) {
        const member = userId(bigMember(i));
        const v = unit(i, 26);
        if (v < 0.97)
          return [id, at, 'tool_call', teamId(BIG_TEAM), member, client, tool, status, duration, null];
        if (v < 0.972) {
          const detail = JSON.stringify({ memberId: userId(bigMember(i + 1)), from: 'member', to: 'admin' });
          return [id, at, 'member_role_changed', teamId(BIG_TEAM), userId(0), null, null, 'ok', null, detail];
        }
        const kind = TEAM_KINDS[Math.floor(unit(i, 27) * TEAM_KINDS.length)] as string;
        return [id, at, kind, teamId(BIG_TEAM), member, client, null, 'ok', null, null];
      }
      const person = Math.floor(unit(i, 28) * s.people);
      if (u < bigShare + 0.08) {
        const v = unit(i, 29);
        const kind = v < 0.92 ? 'sign_in' : v < 0.95 ? 'signed_out_everywhere' : 'account_created';
        return [id, at, kind, null, userId(person), null, null, 'ok', null, null];
      }
      const team = teamOf(s, person);
      const inTeam = team && team.team > TINY_TEAM && unit(i, 30) < 0.5;
      const workspace = inTeam ? teamId(team.team) : personalId(person);
      return [id, at, 'tool_call', workspace, userId(person), client, tool, status, duration, null];
    },
  };
}

function coordination(s: Shape): TableRows[] {
  const n = Math.max(50, Math.round(10_000 * s.scale));
  return [
    {
      table: 'rate_limit_hits',
      columns: ['key', 'window_start', 'hits', 'expires_at'],
      count: n,
      row: (i) => {
        const window = s.now - Math.floor(unit(i, 31) * 2 * 3600_000);
        return [`bench-${i}`, window, 3, window + 3600_000];
      },
    },
  ];
}

/** Every table's rows, parents before children (foreign keys). */
export function tablesOf(s: Shape): TableRows[] {
  return [...people(s), clients(s), ...grants(s), ...shortLived(s), audit(s), ...coordination(s)];
}
