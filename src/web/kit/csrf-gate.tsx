import type { Context } from 'hono';
import type { Config } from '../../config.js';
import type { AppEnv } from '../../http/env.js';
import { originCheck, verifyCsrf } from '../csrf.js';
import { privatePage } from '../layout.js';
import { type Form, type FormAll, readForm, readFormAll } from './form-data.js';
import { MessagePage } from './message-page.js';

type Refusal = (c: Context<AppEnv>) => Response | Promise<Response>;

export interface CsrfGate {
  /** Middleware for every state-changing route: refuses a form that is not same-origin (layer 1). */
  sameOrigin: ReturnType<typeof originCheck>;
  /** The 403 page for a form this site did not send. */
  refused: Refusal;
  /** The form when it carries the visitor's CSRF token (layer 2, csrf.ts), else null. */
  checkedForm(c: Context<AppEnv>): Promise<Form | null>;
  /** The same, with repeated names (checkboxes) as arrays. */
  checkedFormAll(c: Context<AppEnv>): Promise<FormAll | null>;
}

/** The page a refused form gets, unless the gate is given its own. */
const requestRefusedPage: Refusal = (c) =>
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

/**
 * Both CSRF layers of csrf.ts as one gate, with the page a refused form gets (the consent flow passes
 * its own, which sends the person back to their app).
 */
export function csrfGate(config: Config, options: { refused?: Refusal } = {}): CsrfGate {
  const refused = options.refused ?? requestRefusedPage;
  return {
    sameOrigin: originCheck(config, refused),
    refused,
    async checkedForm(c) {
      const form = await readForm(c);
      return verifyCsrf(c, form) ? form : null;
    },
    async checkedFormAll(c) {
      const form = await readFormAll(c);
      return verifyCsrf(c, form) ? form : null;
    },
  };
}
