import type { Child } from 'hono/jsx';

/**
 * One labelled input. The label text is exactly `label` (pages are operated by label: ARCHITECTURE.md, Rules
 * the code keeps); the hint and the error sit outside the label and are tied to the input by
 * aria-describedby, and an error also sets aria-invalid.
 */
export interface FieldProps {
  id: string;
  name: string;
  label: string;
  type?: 'text' | 'email' | 'password' | 'number' | 'date';
  value?: string;
  error?: string | undefined;
  hint?: Child;
  autocomplete?: string;
  required?: boolean;
  maxLength?: number;
  minLength?: number;
  autofocus?: boolean;
  inputMode?: 'email' | 'text' | 'numeric';
  min?: number;
  max?: number;
}

export function Field(props: FieldProps) {
  const hintId = props.hint ? `${props.id}-hint` : null;
  const errorId = props.error ? `${props.id}-error` : null;
  const describedBy = [errorId, hintId].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.error ? (
        <p id={errorId ?? undefined} class="error field-error">
          {props.error}
        </p>
      ) : null}
      <input
        id={props.id}
        name={props.name}
        type={props.type ?? 'text'}
        value={props.type === 'password' ? undefined : (props.value ?? '')}
        autocomplete={props.autocomplete}
        required={props.required ?? true}
        min={props.min}
        max={props.max}
        maxlength={props.maxLength}
        minlength={props.minLength}
        autofocus={props.autofocus}
        inputmode={props.inputMode}
        spellcheck={props.type === 'email' || props.type === 'password' ? false : undefined}
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={describedBy}
      />
      {props.hint ? (
        <p id={hintId ?? undefined} class="hint">
          {props.hint}
        </p>
      ) : null}
    </div>
  );
}

/** A message for the whole form, announced when the page loads with it. */
export function FormError({ id, message }: { id: string; message?: string | undefined }) {
  if (!message) return null;
  return (
    <div id={id} class="notice error-summary" role="alert">
      {message}
    </div>
  );
}

export function Notice({
  message,
  kind = 'ok',
}: {
  message?: string | null | undefined;
  kind?: 'ok' | 'warn';
}) {
  if (!message) return null;
  return (
    <p class={`notice ${kind}`} role="status">
      {message}
    </p>
  );
}

/** One labelled select, wired like Field: the label is exactly `label`, hint and error described-by. */
export function SelectField(props: {
  id: string;
  name: string;
  label: string;
  options: ReadonlyArray<{ value: string; label: string }>;
  value?: string | null;
  error?: string | undefined;
  hint?: Child;
  required?: boolean;
}) {
  const hintId = props.hint ? `${props.id}-hint` : null;
  const errorId = props.error ? `${props.id}-error` : null;
  const describedBy = [errorId, hintId].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.error ? (
        <p id={errorId ?? undefined} class="error field-error">
          {props.error}
        </p>
      ) : null}
      <select
        id={props.id}
        name={props.name}
        required={props.required}
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={describedBy}
      >
        {props.options.map((o) => (
          <option value={o.value} selected={o.value === props.value}>
            {o.label}
          </option>
        ))}
      </select>
      {props.hint ? (
        <p id={hintId ?? undefined} class="hint">
          {props.hint}
        </p>
      ) : null}
    </div>
  );
}
