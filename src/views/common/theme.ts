import type { HostContext } from './bridge.js';

/** Host style variables are custom properties by name (SEP-1865 "Theming"); nothing else is applied. */
const VARIABLE = /^--[a-z0-9-]+$/;

/**
 * Follows the host: its light or dark theme (else the system's, through `color-scheme: light dark`),
 * its CSS variables (set through the CSSOM, which the view's CSP allows), its safe-area insets.
 * Host fonts are not loaded: they would be a request to another origin.
 */
export function applyHostContext(context: HostContext): void {
  const root = document.documentElement;
  if (context.theme === 'light' || context.theme === 'dark') {
    root.dataset.theme = context.theme;
    root.style.colorScheme = context.theme;
  }
  for (const [name, value] of Object.entries(context.styles?.variables ?? {})) {
    if (VARIABLE.test(name) && typeof value === 'string') root.style.setProperty(name, value);
  }
  const insets = context.safeAreaInsets;
  if (insets) {
    const body = document.body.style;
    body.paddingTop = `${insets.top}px`;
    body.paddingRight = `${insets.right}px`;
    body.paddingBottom = `${insets.bottom}px`;
    body.paddingLeft = `${insets.left}px`;
  }
}
