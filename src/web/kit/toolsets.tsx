import {
  isToolset,
  storedSelection,
  TOOLSET_DESCRIPTIONS,
  TOOLSETS,
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
 * ticked, '' when none is: the caller refuses that) and read-only.
 */
export function toolsetChoiceOf(form: FormAll): { toolsets: string | null; readOnly: boolean } {
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
