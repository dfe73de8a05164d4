import { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { recordAccountEvent } from '../../accounts/audit.js';
import { endSession } from '../../accounts/sessions.js';
import { authenticate, EMAIL_MAX_LENGTH, normaliseEmail } from '../../accounts/users.js';
import type { Config } from '../../config.js';
import type { Store } from '../../db/store/index.js';
import { clientAddressKey } from '../../http/client-ip.js';
import type { AppEnv } from '../../http/env.js';
import { endAccess } from '../../oauth/end-access.js';
import { dummyPasswordHash, PASSWORD_MAX_LENGTH } from '../../security/passwords.js';
import { clearCookie, cookiePolicy } from '../cookies.js';
import { verifyCsrf } from '../csrf.js';
import { csrfGate } from '../kit/csrf-gate.js';
import { readForm } from '../kit/form-data.js';
import { privatePage } from '../layout.js';
import { safeNext } from '../next.js';
import { PasswordAttempts } from '../password-attempts.js';
import { tooManyAttempts } from '../rate-limits.js';
import { requireUser, sessionToken, startSession } from '../session.js';
import { askingApp } from './asking-app.js';
import { type FormErrors, SignInPage } from './page.js';

/** Sign-in, sign-out and sign-out everywhere. */
export function signInRoutes(deps: { config: Config; db: Store }) {
  const { config, db } = deps;
  const app = new Hono<AppEnv>();
  const gate = csrfGate(config);
  const attempts = new PasswordAttempts(db, config);
  // Made now, so the first sign-in with an unknown email is not the slow one that tells.
  void dummyPasswordHash();

  app.get('/sign-in', async (c) => {
    const next = safeNext(c.req.query('next'), config.publicUrl);
    if (c.get('user')) return c.redirect(next ?? '/account', 303);
    const reason = c.req.query('reason') ?? null;
    return privatePage(c, <SignInPage c={c} next={next} app={await askingApp(db, next)} notice={reason} />);
  });

  app.post('/sign-in', gate.sameOrigin, async (c) => {
    const form = await readForm(c);
    const next = safeNext(form.next, config.publicUrl);
    const email = normaliseEmail((form.email ?? '').slice(0, EMAIL_MAX_LENGTH + 1));
    const password = form.password ?? '';
    const render = async (errors: FormErrors, status: ContentfulStatusCode) =>
      privatePage(
        c,
        <SignInPage c={c} email={email} next={next} app={await askingApp(db, next)} errors={errors} />,
        status,
      );

    if (!verifyCsrf(c, form)) {
      return render({ form: 'This form expired or was not sent from this page. Please try again.' }, 403);
    }
    if (!email || !password) {
      return render(
        {
          ...(email ? {} : { email: 'Enter your email address.' }),
          ...(password ? {} : { password: 'Enter your password.' }),
        },
        400,
      );
    }
    const ip = clientAddressKey(c, config);
    // Reserved before the password is checked, so parallel attempts cannot all pass a check made
    // before any failure was counted; a right password gives the reservations back.
    const reserved = await attempts.reserve(ip, email);
    if (!reserved.allowed) {
      await recordAccountEvent(db, { kind: 'sign_in_throttled', status: '429', detail: { ip } });
      return render({ form: tooManyAttempts(c, reserved.retryAfterSeconds) }, 429);
    }

    // Over-long input is a wrong password; it is not worth hashing.
    const user =
      email.length <= EMAIL_MAX_LENGTH && password.length <= PASSWORD_MAX_LENGTH
        ? await authenticate(db, email, password)
        : null;
    if (!user) {
      await recordAccountEvent(db, { kind: 'sign_in_failed', status: '401', detail: { ip } });
      c.get('log').info({ event: 'sign_in_failed' }, 'sign-in failed');
      // One message whether the email is unknown or the password wrong.
      return render({ password: 'The email or password is not right. Check both and try again.' }, 401);
    }
    await reserved.succeeded();
    await startSession(c, db, config, user.id);
    await recordAccountEvent(db, { kind: 'sign_in', userId: user.id, detail: { ip } });
    return c.redirect(next ?? '/account', 303);
  });

  app.post('/sign-out', gate.sameOrigin, async (c) => {
    const form = await readForm(c);
    const token = sessionToken(c, config);
    if (c.get('user') && token) {
      if (!verifyCsrf(c, form)) return gate.refused(c);
      await endSession(db, token);
    }
    clearCookie(c, config, cookiePolicy(config).sessionName);
    return c.redirect('/sign-in?reason=signed_out', 303);
  });

  app.post('/sign-out-everywhere', gate.sameOrigin, async (c) => {
    const user = requireUser(c);
    if (user instanceof Response) return user;
    const form = await gate.checkedForm(c);
    if (!form) return gate.refused(c);
    // Every browser and every connected app: what someone else may have signed in with ends too.
    const ended = await db.transaction(async (tx) => {
      const access = await endAccess(tx, user.id, { reason: 'signed_out_everywhere' });
      await recordAccountEvent(tx, {
        kind: 'signed_out_everywhere',
        userId: user.id,
        detail: { sessions: access.sessions, apps: access.apps },
      });
      return access;
    });
    c.get('log').info({ userId: user.id, ...ended }, 'signed out everywhere');
    clearCookie(c, config, cookiePolicy(config).sessionName);
    return c.redirect('/sign-in?reason=signed_out_everywhere', 303);
  });

  return app;
}
