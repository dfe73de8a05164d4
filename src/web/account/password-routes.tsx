import { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { recordAccountEvent } from '../../accounts/audit.js';
import { authenticate, setPasswordHash } from '../../accounts/users.js';
import type { Config } from '../../config.js';
import type { Store } from '../../db/store/index.js';
import { clientAddressKey } from '../../http/client-ip.js';
import type { AppEnv } from '../../http/env.js';
import { endAccess } from '../../oauth/end-access.js';
import {
  hashPassword,
  PASSWORD_MAX_LENGTH,
  passwordProblem,
  passwordProblemMessage,
} from '../../security/passwords.js';
import { csrfGate } from '../kit/csrf-gate.js';
import { privatePage } from '../layout.js';
import { PasswordAttempts } from '../password-attempts.js';
import { tooManyAttempts } from '../rate-limits.js';
import { requireUser, sessionToken } from '../session.js';
import { type PasswordErrors, PasswordPage } from './password-page.js';

/** GET and POST /account/password: a signed-in person changes their password. */
export function passwordRoutes(deps: { config: Config; db: Store }) {
  const { config, db } = deps;
  const app = new Hono<AppEnv>();
  const gate = csrfGate(config);
  const attempts = new PasswordAttempts(db, config);

  app.get('/account/password', (c) => {
    const user = requireUser(c);
    if (user instanceof Response) return user;
    return privatePage(c, <PasswordPage c={c} user={user} />);
  });

  app.post('/account/password', gate.sameOrigin, async (c) => {
    const user = requireUser(c);
    if (user instanceof Response) return user;
    const form = await gate.checkedForm(c);
    if (!form) return gate.refused(c);
    const current = form.current_password ?? '';
    const next = form.new_password ?? '';
    const keepApps = form.keep_apps === 'on';
    const render = (errors: PasswordErrors, status: ContentfulStatusCode) =>
      privatePage(c, <PasswordPage c={c} user={user} keepApps={keepApps} errors={errors} />, status);

    const errors: PasswordErrors = {};
    if (!current) errors.current = 'Enter your current password.';
    const problem = passwordProblem(next, user.email);
    if (problem) errors.next = passwordProblemMessage(problem);
    if (errors.current || errors.next) return render(errors, 400);

    // The current password is checked under the same budget as sign-in's, reserved first: a stolen
    // session must not become a faster way to guess the password.
    const ip = clientAddressKey(c, config);
    const reserved = await attempts.reserve(ip, user.email);
    if (!reserved.allowed) return render({ form: tooManyAttempts(c, reserved.retryAfterSeconds) }, 429);
    const checked =
      current.length <= PASSWORD_MAX_LENGTH ? await authenticate(db, user.email, current) : null;
    if (!checked || checked.id !== user.id) {
      await recordAccountEvent(db, {
        kind: 'password_change_failed',
        userId: user.id,
        status: '401',
        detail: { ip },
      });
      return render({ current: 'That is not your current password.' }, 400);
    }
    await reserved.succeeded();

    const passwordHash = await hashPassword(next);
    const now = Date.now();
    const ended = await db.transaction(async (tx) => {
      await setPasswordHash(tx, user.id, passwordHash, now);
      const access = await endAccess(
        tx,
        user.id,
        { reason: 'password_changed', keepSession: sessionToken(c, config), keepApps },
        now,
      );
      await recordAccountEvent(
        tx,
        {
          kind: 'password_changed',
          userId: user.id,
          detail: { sessionsEnded: access.sessions, appsDisconnected: access.apps, appsKept: keepApps },
        },
        now,
      );
      return access;
    });
    c.get('log').info({ userId: user.id, ...ended, keepApps }, 'password changed');
    return c.redirect(`/account?done=${keepApps ? 'password_changed_apps_kept' : 'password_changed'}`, 303);
  });

  return app;
}
