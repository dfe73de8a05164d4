import type { Context } from 'hono';
import type { AppEnv } from '../../http/env.js';
import { jsonError } from '../../http/errors.js';
import { wantsJson } from '../../http/wants-json.js';
import { Layout, privatePage } from '../layout.js';

/**
 * The app's 404: an HTML page with a way home for people, JSON for API paths and for clients that
 * prefer JSON over HTML (RFC 9110 §12.5.1 Accept; no Accept or `*\/*` gets the page).
 */
export function notFound(c: Context<AppEnv>) {
  const path = c.req.path;
  if (wantsJson(c)) return jsonError(c, 404, 'not_found', `Nothing is served at ${path}.`);
  const user = c.get('user');
  // Signed in, the header carries the sign-out form's CSRF token: never cached.
  return privatePage(
    c,
    <Layout title="Page not found" signedInAs={user?.email ?? null} csrfToken={c.get('csrfToken')}>
      <h1>Page not found</h1>
      <p>
        There is nothing at <code>{path}</code>. The link may be mistyped or out of date.
      </p>
      <p class="actions">
        <a href="/">Go to the home page</a>
        {user ? <a href="/account">Your account</a> : <a href="/sign-in">Sign in</a>}
        <a href="/connect">Connect a client</a>
      </p>
    </Layout>,
    404,
  );
}
