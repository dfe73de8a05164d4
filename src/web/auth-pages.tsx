import type { Context } from 'hono';
import { EMAIL_MAX_LENGTH } from '../accounts/users.js';
import type { AppEnv } from '../http/env.js';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../security/passwords.js';
import { csrfField } from './csrf.js';
import { Field, FormError, Notice } from './form.js';
import { Layout } from './layout.js';

export interface FormErrors {
  email?: string;
  password?: string;
  form?: string;
}

function withNext(path: string, next: string | null, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams(extra);
  if (next) params.set('next', next);
  const query = params.toString();
  return query ? `${path}?${query}` : path;
}

export function SignUpPage(props: {
  c: Context<AppEnv>;
  email?: string;
  next: string | null;
  invite: string | null;
  errors?: FormErrors;
}) {
  const { c, errors = {} } = props;
  return (
    <Layout title="Create account">
      <h1>Create account</h1>
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

const SIGN_IN_NOTICES: Record<string, string> = {
  expired: 'Your session has ended. Sign in again to continue.',
  signed_out: 'You are signed out.',
  signed_out_everywhere: 'You are signed out on every device and browser.',
};

export function SignInPage(props: {
  c: Context<AppEnv>;
  email?: string;
  next: string | null;
  notice?: string | null;
  errors?: FormErrors;
}) {
  const { c, errors = {} } = props;
  const notice = props.notice ? SIGN_IN_NOTICES[props.notice] : null;
  return (
    <Layout title="Sign in">
      <h1>Sign in</h1>
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

/** Sign-up refused by SIGNUP=invite (without a usable invite) or SIGNUP=closed. */
export function SignUpClosedPage(props: { mode: 'invite' | 'closed'; inviteProblem?: boolean }) {
  return (
    <Layout title="Sign-up unavailable">
      <h1>{props.mode === 'invite' ? 'Sign-up is by invitation' : 'Sign-up is closed'}</h1>
      <p role="alert" class="notice warn">
        {props.mode === 'invite'
          ? props.inviteProblem
            ? 'This invite link is not valid any more: it may have expired, been used up or been revoked. Ask the person who invited you for a new link.'
            : 'New accounts on this server need an invite link. Ask a workspace owner to invite you.'
          : 'This server does not accept new accounts. Ask its operator if you need access.'}
      </p>
      <p>
        Already have an account? <a href="/sign-in">Sign in</a>
      </p>
    </Layout>
  );
}

/** A page with one message: refusals (CSRF, not found, rate limits) that have no form to redisplay. */
export function MessagePage(props: {
  title: string;
  message: string;
  signedInAs?: string | null;
  csrfToken?: string | null;
  link?: { href: string; text: string };
}) {
  return (
    <Layout title={props.title} signedInAs={props.signedInAs} csrfToken={props.csrfToken}>
      <h1>{props.title}</h1>
      <p role="alert" class="notice warn">
        {props.message}
      </p>
      {props.link ? (
        <p>
          <a href={props.link.href}>{props.link.text}</a>
        </p>
      ) : null}
    </Layout>
  );
}
