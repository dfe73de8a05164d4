/**
 * Toolsets: the groups a connection may narrow its tools to, so a client that needs a few tools does
 * not pay for all of them in every conversation (and a client that takes only its first N tools gets
 * the ones it needs). Each ToolDef names its toolset; read-only is a separate switch that leaves out
 * every tool that writes or spends credits (annotations.readOnlyHint false).
 *
 * A selection is chosen by the connection (URL, headers), at consent (remembered on the grant) and per
 * access token; the narrowest of them applies. It only ever hides tools: what a grant may do is still
 * its scopes.
 */
export const TOOLSETS = ['searches', 'posts', 'experts', 'agent_runs', 'schedules', 'account'] as const;

export type Toolset = (typeof TOOLSETS)[number];

/** Plain-language meaning, shown on the consent, account and connect pages. */
export const TOOLSET_DESCRIPTIONS: Record<Toolset, string> = {
  searches: 'Keyword and user searches: start them, read their status and analysis, list them',
  posts: 'Posts and topic trees of keyword and user searches',
  experts: 'Expert searches: start, read and list them',
  agent_runs: 'Agent runs: start, read, list, cancel, rerun, rename and delete them',
  schedules: 'Agent schedules: create, read, list, change, pause, resume and delete them, and their runs',
  account: 'Usage figures and the webhook setup',
};

const KNOWN = new Set<string>(TOOLSETS);

export function isToolset(value: string): value is Toolset {
  return KNOWN.has(value);
}

/** What a connection sees: the toolsets it chose (null: every toolset) and whether it is read-only. */
export interface ToolSelection {
  toolsets: ReadonlySet<Toolset> | null;
  readOnly: boolean;
}

export const EVERY_TOOL: ToolSelection = Object.freeze({ toolsets: null, readOnly: false });

/** What a tool declares for the selection: its toolset, and whether it writes or spends credits. */
export interface SelectableTool {
  toolset: Toolset;
  annotations: { readOnlyHint: boolean };
}

/** Whether a tool writes or spends credits: what read-only leaves out. */
export function writes(tool: SelectableTool): boolean {
  return !tool.annotations.readOnlyHint;
}

export function selects(selection: ToolSelection, tool: SelectableTool): boolean {
  if (selection.readOnly && writes(tool)) return false;
  return selection.toolsets === null || selection.toolsets.has(tool.toolset);
}

/** Why a selection leaves a tool out: read-only (it writes) or its toolset was not chosen. */
export function outsideReason(selection: ToolSelection, tool: SelectableTool): 'read_only' | 'toolset' {
  return selection.readOnly && writes(tool) ? 'read_only' : 'toolset';
}

/** What a model is told when it calls a tool the selection leaves out: what happened, what would work. */
export function outsideSelectionText(
  selection: ToolSelection,
  tool: SelectableTool & { name: string },
): string {
  if (outsideReason(selection, tool) === 'read_only')
    return (
      `${tool.name} writes or spends credits, and this connection is read-only: nothing was sent upstream. ` +
      'Tell the user; a connection without read-only can call it.'
    );
  return (
    `${tool.name} is in the toolset "${tool.toolset}", which this connection did not choose ` +
    `(it chose: ${(toolsetList(selection) ?? []).join(', ') || 'none'}). ` +
    'Tell the user; a connection that includes that toolset can call it.'
  );
}

/** The narrowest of two selections: the toolsets both chose, read-only if either is. */
export function narrow(a: ToolSelection, b: ToolSelection): ToolSelection {
  if (b.toolsets === null && (a.readOnly || !b.readOnly)) return a;
  if (a.toolsets === null && (b.readOnly || !a.readOnly)) return b;
  const toolsets =
    a.toolsets === null
      ? b.toolsets
      : b.toolsets === null
        ? a.toolsets
        : new Set([...a.toolsets].filter((t) => b.toolsets?.has(t)));
  return { toolsets, readOnly: a.readOnly || b.readOnly };
}

/** The toolsets of a selection in canonical order, or null for every toolset. */
export function toolsetList(selection: ToolSelection): Toolset[] | null {
  const chosen = selection.toolsets;
  return chosen === null ? null : TOOLSETS.filter((t) => chosen.has(t));
}

/** Canonical key of a selection ('' for every tool): caches of listings key on it. */
export function selectionKey(selection: ToolSelection): string {
  const list = toolsetList(selection);
  return `${list === null ? '*' : list.join(',')}${selection.readOnly ? ' ro' : ''}`;
}

/**
 * Parses a comma- or space-separated toolset list (URL parameter, header, stored column). `all` (or
 * nothing at all) means every toolset; an unknown name is reported, never silently dropped, so a typo
 * does not quietly hide tools.
 */
export function parseToolsets(
  value: string,
): { ok: true; toolsets: Set<Toolset> | null } | { ok: false; unknown: string } {
  const names = value
    .split(/[\s,]+/)
    .map((n) => n.trim().toLowerCase())
    .filter(Boolean);
  if (names.length === 0 || names.includes('all')) return { ok: true, toolsets: null };
  const toolsets = new Set<Toolset>();
  for (const name of names) {
    if (!isToolset(name)) return { ok: false, unknown: name.slice(0, 40) };
    toolsets.add(name);
  }
  return { ok: true, toolsets };
}

/** A stored selection (grant, code, consent columns): unknown names in old rows are dropped. */
export function storedSelection(toolsets: string | null, readOnly: boolean): ToolSelection {
  if (toolsets === null) return readOnly ? { toolsets: null, readOnly } : EVERY_TOOL;
  const set = new Set(toolsets.split(' ').filter(isToolset));
  return { toolsets: set, readOnly };
}

/** The toolsets column of a selection: null for every toolset, else space-separated names. */
export function toolsetsColumn(selection: ToolSelection): string | null {
  const list = toolsetList(selection);
  return list === null ? null : list.join(' ');
}
