import type { Context } from 'hono';
import { EMAIL_MAX_LENGTH } from '../../accounts/users.js';
import type { AppEnv } from '../../http/env.js';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../security/passwords.js';
import { csrfField } from '../csrf.js';
import { Field, FormError } from '../kit/fields.js';
import { Layout } from '../layout.js';
import { withNext } from '../next.js';
import type { AskingApp } from '../sign-in/asking-app.js';
import { AskingAppNotice, type FormErrors } from '../sign-in/page.js';

export function SignUpPage(props: {
  c: Context<AppEnv>;
  email?: string;
  next: string | null;
  app: AskingApp | null;
  invite: string | null;
  errors?: FormErrors;
}) {
  const { c, errors = {} } = props;
  return (
    <Layout title="Create account" next={props.next}>
      <h1>Create account</h1>
      <AskingAppNotice app={props.app} />
      <p class="lead">
        An account lets your AI clients use the search and agent tools with your own API credentials.
      </p>
      <FormError id="form-error" message={errors.form} />
      <form method="post" action="/sign-up" class="stack" novalidate>
        {csrfField(c)}
        {props.next ? <input type="hidden" name="next" value={props.next} /> : null}
        {props.invite ? <input type="hidden" name="invite" value={props.invite} /> : null}
        <Field
          id="email"
          name="email"
          label="Email"
          type="email"
          inputMode="email"
          autocomplete="email"
          value={props.email ?? ''}
          maxLength={EMAIL_MAX_LENGTH}
          error={errors.email}
          autofocus={!errors.password}
        />
        <Field
          id="password"
          name="password"
          label="Password"
          type="password"
          autocomplete="new-password"
          minLength={PASSWORD_MIN_LENGTH}
          maxLength={PASSWORD_MAX_LENGTH}
          error={errors.password}
          autofocus={Boolean(errors.password) && !errors.email}
          hint={`At least ${PASSWORD_MIN_LENGTH} characters. Common passwords are refused.`}
        />
        <div class="actions">
          <button type="submit">Create account</button>
        </div>
      </form>
      <p>
        Already have an account? <a href={withNext('/sign-in', props.next)}>Sign in</a>
      </p>
    </Layout>
  );
}

/** Sign-up refused by SIGNUP=invite (without a usable invite) or SIGNUP=closed. */
export function SignUpClosedPage(props: {
  mode: 'invite' | 'closed';
  inviteProblem?: boolean;
  next?: string | null;
}) {
  return (
    <Layout title="Sign-up unavailable" next={props.next}>
      <h1>{props.mode === 'invite' ? 'Sign-up is by invitation' : 'Sign-up is closed'}</h1>
      <p role="alert" class="notice warn">
        {props.mode === 'invite'
          ? props.inviteProblem
            ? 'This invite link is not valid any more: it may have expired, been used up or been revoked. Ask the person who invited you for a new link.'
            : 'New accounts on this server need an invite link. Ask a workspace owner to invite you.'
          : 'This server does not accept new accounts. Ask its operator if you need access.'}
      </p>
      <p>
        Already have an account? <a href={withNext('/sign-in', props.next)}>Sign in</a>
      </p>
    </Layout>
  );
}
