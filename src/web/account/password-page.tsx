import type { Context } from 'hono';
import type { AppEnv, SessionUser } from '../../http/env.js';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../security/passwords.js';
import { csrfField } from '../csrf.js';
import { Field, FormError } from '../kit/fields.js';
import { Layout } from '../layout.js';

export interface PasswordErrors {
  current?: string;
  next?: string;
  form?: string;
}

/**
 * Changing one's password. A new password signs out every other browser and, unless the box is
 * ticked (it is not by default), disconnects every connected app: whoever knew the old password may
 * have connected one.
 */
export function PasswordPage(props: {
  c: Context<AppEnv>;
  user: SessionUser;
  keepApps?: boolean;
  errors?: PasswordErrors;
}) {
  const { c, user, errors = {} } = props;
  return (
    <Layout title="Change password" signedInAs={user.email} csrfToken={c.get('csrfToken')}>
      <h1>Change your password</h1>
      <FormError id="form-error" message={errors.form} />
      <p class="muted">
        Your other browsers are signed out, and your connected apps are disconnected (connect them again
        afterwards) unless you choose to keep them.
      </p>
      <form method="post" action="/account/password" class="stack" novalidate>
        {csrfField(c)}
        <input type="hidden" name="username" value={user.email} autocomplete="username" />
        <Field
          id="current-password"
          name="current_password"
          label="Current password"
          type="password"
          autocomplete="current-password"
          maxLength={PASSWORD_MAX_LENGTH}
          error={errors.current}
          autofocus
        />
        <Field
          id="new-password"
          name="new_password"
          label="New password"
          type="password"
          autocomplete="new-password"
          minLength={PASSWORD_MIN_LENGTH}
          maxLength={PASSWORD_MAX_LENGTH}
          error={errors.next}
          hint={`At least ${PASSWORD_MIN_LENGTH} characters; a few unrelated words work well.`}
        />
        <div class="field">
          <label class="check">
            <input
              type="checkbox"
              name="keep_apps"
              checked={props.keepApps ?? false}
              aria-describedby="keep-apps-hint"
            />{' '}
            Keep my connected apps
          </label>
          <p id="keep-apps-hint" class="hint">
            Tick this only if you are sure nobody else used your password.
          </p>
        </div>
        <div class="actions">
          <button type="submit">Change password</button>
          <a href="/account">Cancel</a>
        </div>
      </form>
    </Layout>
  );
}
