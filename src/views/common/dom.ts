/**
 * DOM building without HTML strings: text always goes in as text nodes, so user-generated content
 * (post text, handles, topic names) can never become markup.
 */
type Child = Node | string | number | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) if (value !== undefined) node.setAttribute(name, value);
  append(node, ...children);
  return node;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** Only web links are links; anything else (javascript:, data:, relative) stays plain text. */
export function webUrl(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * A link the host opens (ui/open-link): the view's sandboxed frame may not navigate. The href stays
 * for the status bar and for "copy link".
 */
export function link(url: string, text: string, open: (url: string) => void): HTMLAnchorElement {
  const a = el('a', { href: url, rel: 'noopener noreferrer', target: '_blank' }, text);
  a.addEventListener('click', (event) => {
    event.preventDefault();
    open(url);
  });
  return a;
}

export function message(kind: 'note' | 'problem', text: string): HTMLParagraphElement {
  return el('p', { class: kind, role: kind === 'problem' ? 'alert' : undefined }, text);
}

export const integer = new Intl.NumberFormat('en');

/** "2026-11-14" from "2026-11-14T12:00:00" or "2026-11-14 12:00:00". */
export function dayOf(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const match = /^(\d{4}-\d{2}-\d{2})/.exec(value);
  return match?.[1] ?? null;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
