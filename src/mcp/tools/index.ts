import { SCOPES, type Scope } from '../../oauth/scopes.js';
import { accountTools } from './account.js';
import { agentRunTools } from './agent-runs.js';
import { expertSearchTools } from './expert-search.js';
import { keywordSearchTools } from './keyword-search.js';
import { scheduleTools } from './schedules.js';
import { EVERY_TOOL, selectionKey, selects, type ToolSelection } from './toolsets.js';
import type { ToolDef } from './types.js';
import { userSearchTools } from './user-search.js';

/** Every tool of docs/upstream.md's "MCP tools" list, in that list's order of groups. */
export const ALL_TOOLS: readonly ToolDef[] = [
  ...expertSearchTools,
  ...keywordSearchTools,
  ...userSearchTools,
  ...agentRunTools,
  ...scheduleTools,
  ...accountTools,
];

/** The tools whose calls spend upstream credits: what a member's monthly write cap counts and limits. */
export const CREDIT_SPENDING_TOOLS: readonly string[] = ALL_TOOLS.filter((t) => t.spendsCredits).map(
  (t) => t.name,
);

/** The names of these tools: how prompts and resources name the tools they use. */
export function names(...tools: readonly ToolDef[]): string[] {
  return tools.map((t) => t.name);
}

const BY_NAME = new Map(ALL_TOOLS.map((t) => [t.name, t]));

export function toolByName(name: string): ToolDef | undefined {
  return BY_NAME.get(name);
}

/** One line per tool, for the home page and the tools table of docs/tools.md. */
export const TOOL_SUMMARIES: Array<{ name: string; summary: string }> = ALL_TOOLS.map((t) => ({
  name: t.name,
  summary: t.summary,
}));

/** The scope a tools/call needs; undefined for a name that is not a tool of ours. */
export function requiredScopeForTool(name: string): Scope | undefined {
  return BY_NAME.get(name)?.scope;
}

const byScopeSet = new Map<string, readonly ToolDef[]>();

/** Canonical key of a scope set: known scopes in canonical order. */
export function scopeKey(scopes: Iterable<string>): string {
  const set = new Set(scopes);
  return SCOPES.filter((s) => set.has(s)).join(' ');
}

/** The tools a grant with these scopes may list and call; computed once per distinct scope set. */
export function toolsForScopes(scopes: Iterable<string>): readonly ToolDef[] {
  const key = scopeKey(scopes);
  let tools = byScopeSet.get(key);
  if (!tools) {
    const granted = new Set(key.split(' '));
    tools = Object.freeze(ALL_TOOLS.filter((t) => granted.has(t.scope)));
    byScopeSet.set(key, tools);
  }
  return tools;
}

/**
 * What one connection may see and call: the tools its scopes allow, narrowed by its toolset selection.
 * Listings (tools, prompts, resource templates, views) follow it and are cached on its key.
 */
export interface Reach {
  /** Canonical: scopes, then the selection. */
  key: string;
  tools: readonly ToolDef[];
  has(name: string): boolean;
}

const reaches = new Map<string, Reach>();

/** The reach of a scope set and selection; one object per distinct pair (at most 2^6 x 2^7). */
export function reachOf(scopes: Iterable<string>, selection: ToolSelection = EVERY_TOOL): Reach {
  const scopeSet = scopeKey(scopes);
  const key = `${scopeSet}|${selectionKey(selection)}`;
  let reach = reaches.get(key);
  if (!reach) {
    const tools = Object.freeze(toolsForScopes(scopeSet.split(' ')).filter((t) => selects(selection, t)));
    const names = new Set(tools.map((t) => t.name));
    reach = { key, tools, has: (name) => names.has(name) };
    reaches.set(key, reach);
  }
  return reach;
}

export type { ToolDef } from './types.js';
