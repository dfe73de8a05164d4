import type { Context } from 'hono';
import type { Config } from '../../config.js';
import type { AppEnv } from '../../http/env.js';
import { originCheck, verifyCsrf } from '../csrf.js';
import { privatePage } from '../layout.js';
import { type Form, readForm } from './form-data.js';
import { MessagePage } from './message-page.js';

export interface CsrfGate {
  /** Middleware for every state-changing route: refuses a form that is not same-origin (layer 1). */
  sameOrigin: ReturnType<typeof originCheck>;
  /** The 403 page for a form this site did not send. */
  refused(c: Context<AppEnv>): Response | Promise<Response>;
  /** The form when it carries the visitor's CSRF token (layer 2, csrf.ts), else null. */
  checkedForm(c: Context<AppEnv>): Promise<Form | null>;
}

/** Both CSRF layers of csrf.ts as one gate, with the page a refused form gets. */
export function csrfGate(config: Config): CsrfGate {
  const refused = (c: Context<AppEnv>) =>
    privatePage(
      c,
      <MessagePage
        title="Request refused"
        message="This form was not sent from this site, so it was not accepted. If you sent it, go back, reload the page and try again."
        signedInAs={c.get('user')?.email ?? null}
        csrfToken={c.get('csrfToken')}
        link={{ href: '/account', text: 'Go to your account' }}
      />,
      403,
    );
  return {
    sameOrigin: originCheck(config, refused),
    refused,
    async checkedForm(c) {
      const form = await readForm(c);
      return verifyCsrf(c, form) ? form : null;
    },
  };
}
