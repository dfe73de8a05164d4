import type { Context } from 'hono';
import { EMAIL_MAX_LENGTH } from '../../accounts/users.js';
import type { AppEnv } from '../../http/env.js';
import { PASSWORD_MAX_LENGTH } from '../../security/passwords.js';
import { csrfField } from '../csrf.js';
import { Field, FormError, Notice } from '../kit/fields.js';
import { Layout } from '../layout.js';
import { withNext } from '../next.js';
import type { AskingApp } from './asking-app.js';

export interface FormErrors {
  email?: string;
  password?: string;
  form?: string;
}

const SIGN_IN_NOTICES: Record<string, string> = {
  expired: 'Your session has ended. Sign in again to continue.',
  signed_out: 'You are signed out.',
  signed_out_everywhere: 'You are signed out on every device and browser.',
};

/** Names the app an interrupted authorization is for; the consent page that follows says the rest. */
export function AskingAppNotice({ app }: { app: AskingApp | null }) {
  if (!app) return null;
  return (
    <div class="notice" role="note">
      <p>
        <strong>{app.name}</strong> is asking to connect to your Social Intel account
        {app.verifiedHost
          ? ` (identified by ${app.verifiedHost})`
          : ' (the name was given by the app itself)'}
        .
      </p>
      <p class="muted">After you sign in you will see what it asks for, and can allow or deny it.</p>
    </div>
  );
}

export function SignInPage(props: {
  c: Context<AppEnv>;
  email?: string;
  next: string | null;
  app: AskingApp | null;
  notice?: string | null;
  errors?: FormErrors;
}) {
  const { c, errors = {} } = props;
  const notice = props.notice ? SIGN_IN_NOTICES[props.notice] : null;
  return (
    <Layout title="Sign in" next={props.next}>
      <h1>Sign in</h1>
      <AskingAppNotice app={props.app} />
      <Notice message={notice} />
      <FormError id="form-error" message={errors.form} />
      <form method="post" action="/sign-in" class="stack" novalidate>
        {csrfField(c)}
        {props.next ? <input type="hidden" name="next" value={props.next} /> : null}
        <Field
          id="email"
          name="email"
          label="Email"
          type="email"
          inputMode="email"
          autocomplete="username"
          value={props.email ?? ''}
          maxLength={EMAIL_MAX_LENGTH}
          error={errors.email}
          autofocus={!props.email}
        />
        <Field
          id="password"
          name="password"
          label="Password"
          type="password"
          autocomplete="current-password"
          maxLength={PASSWORD_MAX_LENGTH}
          error={errors.password}
          autofocus={Boolean(props.email)}
        />
        <div class="actions">
          <button type="submit">Sign in</button>
        </div>
      </form>
      <p>
        New here? <a href={withNext('/sign-up', props.next)}>Create an account</a>
      </p>
    </Layout>
  );
}
