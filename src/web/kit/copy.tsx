/**
 * A value or snippet with a copy button. The button is `hidden` until /assets/copy.js shows it (pages
 * using these set `copyButtons` on Layout); its accessible name says what it copies.
 */
function CopyButton({ target, what }: { target: string; what: string }) {
  return (
    <>
      <button type="button" class="secondary small" data-copy={target} hidden>
        Copy<span class="visually-hidden"> {what}</span>
      </button>
      <span class="copy-status" aria-live="polite" />
    </>
  );
}

/** One line: the value in a code element, then its copy button. */
export function CopyLine({ id, value, what }: { id: string; value: string; what: string }) {
  return (
    <div class="copy-line">
      <code id={id}>{value}</code>
      <CopyButton target={id} what={what} />
    </div>
  );
}

/** A multi-line snippet (a command, a JSON file) and its copy button below. */
export function CopyBlock({ id, text, what }: { id: string; text: string; what: string }) {
  return (
    <div class="copy-block">
      <pre>
        <code id={id}>{text}</code>
      </pre>
      <div class="actions">
        <CopyButton target={id} what={what} />
      </div>
    </div>
  );
}

/**
 * A labelled read-only input holding a value to copy (an invite link), its copy button beside it: the
 * input keeps the whole value selectable without JavaScript and wraps nothing.
 */
export function CopyField({
  id,
  label,
  value,
  what,
}: {
  id: string;
  label: string;
  value: string;
  what: string;
}) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <div class="copy-line copy-field">
        <input id={id} type="text" readonly value={value} />
        <CopyButton target={id} what={what} />
      </div>
    </div>
  );
}
