import type { Context } from 'hono';
import type { Child } from 'hono/jsx';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { COPY_SCRIPT_PATH, LOCAL_TIME_SCRIPT_PATH, STYLESHEET_PATH } from './assets.js';
import { withNext } from './next.js';

export interface LayoutProps {
  title: string;
  /** Shown in the header when someone is signed in. */
  signedInAs?: string | null;
  /** Needed for the header's sign-out form (CSRF token), when signed in. */
  csrfToken?: string | null;
  /**
   * Where a signed-out visitor returns after signing in or creating an account from the header
   * (the page's own `next`, so a detour through the header keeps an authorization going).
   */
  next?: string | null;
  /** An invite token the header's "Create account" link carries (the invitation page). */
  invite?: string | null;
  /** Loads the copy-button script (our origin, CSP script-src 'self'); pages without copy buttons load none. */
  copyButtons?: boolean;
  /** Loads the script that shows kit/time.tsx's times in the reader's time zone. */
  localTimes?: boolean;
  children?: Child;
}

/** Page frame shared by every browser page: no external assets, one stylesheet, only the scripts it uses. */
export function Layout({
  title,
  signedInAs,
  csrfToken,
  next,
  invite,
  copyButtons,
  localTimes,
  children,
}: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · Social Intel MCP`}</title>
        <link rel="stylesheet" href={STYLESHEET_PATH} />
        {copyButtons ? <script src={COPY_SCRIPT_PATH} defer /> : null}
        {localTimes ? <script src={LOCAL_TIME_SCRIPT_PATH} defer /> : null}
      </head>
      <body>
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        <header class="site">
          <a class="brand" href="/">
            Social Intel MCP
          </a>
          {signedInAs ? (
            <nav aria-label="Account">
              <a href="/connect">Connect a client</a>
              <a href="/account">Account</a>
              <span class="muted who">{signedInAs}</span>
              <form method="post" action="/sign-out">
                {csrfToken ? <input type="hidden" name="csrf" value={csrfToken} /> : null}
                <button type="submit" class="secondary">
                  Sign out
                </button>
              </form>
            </nav>
          ) : (
            <nav aria-label="Account">
              <a href={withNext('/sign-in', next)}>Sign in</a>
              <a href={withNext('/sign-up', next, invite ? { invite } : {})}>Create account</a>
            </nav>
          )}
        </header>
        <main id="main" tabindex={-1}>
          {children}
        </main>
      </body>
    </html>
  );
}

/**
 * Sends a page that belongs to one person (their account, a form with their CSRF token, a consent
 * request): never cached, by the browser or anything between (RFC 9111 §5.2.2.5).
 */
export function privatePage(
  c: Context,
  body: Parameters<Context['html']>[0],
  status: ContentfulStatusCode = 200,
) {
  c.header('Cache-Control', 'no-store');
  return c.html(body, status);
}
