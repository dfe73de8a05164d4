import type { Context } from 'hono';
import type { Child } from 'hono/jsx';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

export interface LayoutProps {
  title: string;
  /** Shown in the header when someone is signed in. */
  signedInAs?: string | null;
  /** Needed for the header's sign-out form (CSRF token), when signed in. */
  csrfToken?: string | null;
  children?: Child;
}

/** Page frame shared by every browser page: no scripts, no external assets, one stylesheet. */
export function Layout({ title, signedInAs, csrfToken, children }: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · Social Intel MCP`}</title>
        <link rel="stylesheet" href="/assets/style.css" />
      </head>
      <body>
        <header class="site">
          <a class="brand" href="/">
            Social Intel MCP
          </a>
          {signedInAs ? (
            <nav aria-label="Account">
              <a href="/account">Account</a>
              <span class="muted">{signedInAs}</span>
              <form method="post" action="/sign-out">
                {csrfToken ? <input type="hidden" name="csrf" value={csrfToken} /> : null}
                <button type="submit" class="secondary">
                  Sign out
                </button>
              </form>
            </nav>
          ) : (
            <nav aria-label="Account">
              <a href="/sign-in">Sign in</a>
              <a href="/sign-up">Create account</a>
            </nav>
          )}
        </header>
        <main>{children}</main>
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
