import { SCOPE_DESCRIPTIONS, type Scope } from '../../oauth/scopes.js';

/**
 * What /mcp does with a tools/call whose scope the caller lacks (docs/oauth.md, Rules worth knowing; MCP
 * authorization "Scope Challenge Handling"). Two cases, because only one of them can be fixed by the client:
 * - the member's team ceiling allows the scope but this grant lacks it (the person consented to less):
 *   403 insufficient_scope, and re-authorization can add it (step-up);
 * - the ceiling excludes the scope: no re-authorization can grant it, so a 403 would only send the
 *   client round the authorization loop again; the call gets a tool result with isError instead,
 *   naming the permission and who can grant it. The same for an access token made for automation,
 *   which no authorization flow can widen.
 */
export type ScopeVerdict =
  | { kind: 'allowed' }
  | { kind: 'step-up'; missing: Scope[] }
  | { kind: 'beyond-ceiling'; tool: string; scope: Scope }
  | { kind: 'not-granted'; tool: string; scope: Scope };

interface ToolCall {
  tool: string;
  scope: Scope;
}

/** The tools/call messages of a JSON-RPC message or batch that name a tool with a scope. */
function toolCalls(body: unknown, requiredScopeForTool: (name: string) => Scope | undefined): ToolCall[] {
  const messages = Array.isArray(body) ? body : [body];
  const calls: ToolCall[] = [];
  for (const message of messages) {
    if (!message || typeof message !== 'object') continue;
    const { method, params } = message as { method?: unknown; params?: { name?: unknown } };
    if (method !== 'tools/call' || typeof params?.name !== 'string') continue;
    const scope = requiredScopeForTool(params.name);
    if (scope) calls.push({ tool: params.name, scope });
  }
  return calls;
}

export function checkScopes(
  body: unknown,
  granted: readonly Scope[],
  ceiling: ReadonlySet<Scope> | null,
  requiredScopeForTool: (name: string) => Scope | undefined,
  canStepUp = true,
): ScopeVerdict {
  const lacking = toolCalls(body, requiredScopeForTool).filter((call) => !granted.includes(call.scope));
  const beyond = ceiling ? lacking.filter((call) => !ceiling.has(call.scope)) : [];
  // A batch (2025-03-26 clients only) cannot be half answered here: its calls beyond the ceiling are
  // left to the handler, which does not register those tools for this caller and answers each alone.
  if (beyond[0] && !Array.isArray(body)) return { kind: 'beyond-ceiling', ...beyond[0] };
  // An access token cannot be re-authorized: what it lacks is answered like a ceiling, as a tool error.
  if (!canStepUp)
    return lacking[0] && !Array.isArray(body) ? { kind: 'not-granted', ...lacking[0] } : { kind: 'allowed' };
  const missing = [...new Set(lacking.filter((call) => !beyond.includes(call)).map((call) => call.scope))];
  return missing.length ? { kind: 'step-up', missing } : { kind: 'allowed' };
}

/**
 * The tool result for a call beyond the ceiling (isError, a few sentences a model can act on). The
 * handler answers the call with it in place of the tool, so the response has the shape the client's
 * protocol revision expects.
 */
export function beyondCeilingResult(verdict: Extract<ScopeVerdict, { kind: 'beyond-ceiling' }>): ToolRefusal {
  const text =
    `${verdict.tool} needs the permission "${SCOPE_DESCRIPTIONS[verdict.scope]}" (${verdict.scope}), ` +
    'which your role in this team workspace does not include. ' +
    'A team owner or admin can grant it in your member settings; until then, tell the user and do not retry this tool.';
  return { content: [{ type: 'text', text }], isError: true };
}

/** The tool result for a call an access token lacks the permission for (no step-up can add it). */
export function notGrantedResult(verdict: Extract<ScopeVerdict, { kind: 'not-granted' }>): ToolRefusal {
  const text =
    `${verdict.tool} needs the permission "${SCOPE_DESCRIPTIONS[verdict.scope]}" (${verdict.scope}), ` +
    'which this access token was not given. Its owner can create a token that has it on the account page; ' +
    'until then, tell the user and do not retry this tool.';
  return { content: [{ type: 'text', text }], isError: true };
}

/** A tools/call answered without running the tool (authInfo.extra.refusal, read by handler.ts). */
export interface ToolRefusal {
  content: Array<{ type: 'text'; text: string }>;
  isError: true;
}
