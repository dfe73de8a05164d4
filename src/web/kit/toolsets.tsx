import {
  EVERY_TOOL,
  isToolset,
  parseToolsets,
  selectionKey,
  storedSelection,
  TOOLSET_DESCRIPTIONS,
  TOOLSETS,
  type ToolSelection,
  type Toolset,
  toolsetList,
} from '../../mcp/tools/toolsets.js';
import { type FormAll, many, one } from './form-data.js';

/** Short names of the toolsets, for lists and tables. */
export const TOOLSET_NAMES: Record<Toolset, string> = {
  searches: 'Searches',
  posts: 'Posts',
  experts: 'Experts',
  agent_runs: 'Agent runs',
  schedules: 'Schedules',
  account: 'Account and setup',
};

/**
 * The toolsets and read-only switch as form fields: one checkbox per toolset (name `toolset`,
 * labelled by its description) and one "Read-only" checkbox. `checked` null ticks every toolset.
 */
export function ToolsetChoice(props: {
  idPrefix: string;
  checked: ReadonlySet<Toolset> | null;
  readOnly: boolean;
  legend?: string;
  error?: string | undefined;
}) {
  const errorId = props.error ? `${props.idPrefix}-toolsets-error` : undefined;
  return (
    <fieldset class="card" aria-describedby={errorId}>
      <legend>{props.legend ?? 'Tools it sees'}</legend>
      <input type="hidden" name="toolsets_shown" value="1" />
      {props.error ? (
        <p id={errorId} class="error field-error">
          {props.error}
        </p>
      ) : null}
      {TOOLSETS.map((t) => (
        <label class="check">
          <input
            type="checkbox"
            name="toolset"
            value={t}
            checked={props.checked === null || props.checked.has(t)}
          />{' '}
          {TOOLSET_DESCRIPTIONS[t]} <code class="muted">{t}</code>
        </label>
      ))}
      <label class="check">
        <input type="checkbox" name="read_only" value="on" checked={props.readOnly} /> Read-only: no tool that
        writes or spends credits
      </label>
      <p class="hint">
        Fewer tools cost the AI model less in every conversation. They never add permissions.
      </p>
    </fieldset>
  );
}

/**
 * The choice a ToolsetChoice form sent: toolsets as the column stores them (null when every one is
 * ticked, '' when none is: the caller refuses that) and read-only. A form without the choice (one
 * rendered before it existed, such as a consent page open across a deploy) chooses every tool.
 */
export function toolsetChoiceOf(form: FormAll): { toolsets: string | null; readOnly: boolean } {
  if (one(form, 'toolsets_shown', 4) !== '1') return { toolsets: null, readOnly: false };
  const ticked = new Set(many(form, 'toolset', TOOLSETS.length + 4).filter(isToolset));
  const list = toolsetList({ toolsets: ticked, readOnly: false }) ?? [];
  return {
    toolsets: list.length === TOOLSETS.length ? null : list.join(' '),
    readOnly: one(form, 'read_only', 10) === 'on',
  };
}

/** A stored choice in words: "Every tool", or the toolsets by name; "read-only" after either. */
export function toolsetWords(toolsets: string | null, readOnly: boolean): string {
  const list = toolsetList(storedSelection(toolsets, readOnly));
  const which = list === null ? 'Every tool' : `Only ${list.map((t) => TOOLSET_NAMES[t]).join(', ')}`;
  return readOnly ? `${which}, read-only` : which;
}

/**
 * The selection a variant of the resource asked for (toolsets as the client wrote them, comma- or
 * space-separated): an unknown name asks for nothing narrower than every toolset.
 */
export function askedView(
  asked: { toolsets: string | null; readOnly: boolean } | null | undefined,
): ToolSelection {
  if (!asked) return EVERY_TOOL;
  const parsed = asked.toolsets === null ? null : parseToolsets(asked.toolsets);
  return { toolsets: parsed?.ok ? parsed.toolsets : null, readOnly: asked.readOnly };
}

/** Whether a stored choice (columns) is the selection asked for. */
export function sameView(
  stored: { toolsets: string | null; readOnly: boolean },
  asked: ToolSelection,
): boolean {
  return selectionKey(storedSelection(stored.toolsets, stored.readOnly)) === selectionKey(asked);
}
