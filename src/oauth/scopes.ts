/**
 * The scopes this server grants. Anything else a client asks for (`openid`, `profile`,
 * `email`, `offline_access`, …) is ignored rather than refused: many clients send them by habit.
 */
export const SCOPES = [
  'searches:read',
  'searches:write',
  'agent:read',
  'agent:write',
  'account:read',
  'account:write',
] as const;

export type Scope = (typeof SCOPES)[number];

/** Plain-language meaning, shown on the consent page. Writes say they spend credits. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'searches:read': 'Read your keyword, user and expert searches, their posts and topic trees',
  'searches:write': 'Start new keyword, user and expert searches (spends search credits)',
  'agent:read': 'Read your agent runs, reports and schedules',
  'agent:write': 'Start, cancel, rerun, rename and delete agent runs and schedules (spends agent credits)',
  'account:read': 'Read usage figures and the webhook (integration) setup',
  'account:write': 'Change the webhook URL that receives completed search results',
};

const KNOWN = new Set<string>(SCOPES);

export function isScope(value: string): value is Scope {
  return KNOWN.has(value);
}

/** Parses a space-separated scope string (RFC 6749 §3.3), keeping known scopes in canonical order. */
export function parseScopes(value: string | null | undefined): Scope[] {
  const asked = new Set((value ?? '').split(' ').filter(Boolean));
  return SCOPES.filter((s) => asked.has(s));
}

export function formatScopes(scopes: Iterable<Scope>): string {
  const set = new Set(scopes);
  return SCOPES.filter((s) => set.has(s)).join(' ');
}
