import { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { findUsableInvite } from '../../accounts/invites.js';
import { SharedRateLimiter } from '../../accounts/rate-limits.js';
import { createUser, EMAIL_MAX_LENGTH, emailProblem, normaliseEmail } from '../../accounts/users.js';
import type { Config } from '../../config.js';
import type { Store } from '../../db/store/index.js';
import { clientAddressKey } from '../../http/client-ip.js';
import type { AppEnv } from '../../http/env.js';
import { passwordProblem, passwordProblemMessage } from '../../security/passwords.js';
import { verifyCsrf } from '../csrf.js';
import { csrfGate } from '../kit/csrf-gate.js';
import { readForm } from '../kit/form-data.js';
import { privatePage } from '../layout.js';
import { safeNext } from '../next.js';
import { RATE_LIMITS, tooManyAttempts } from '../rate-limits.js';
import { startSession } from '../session.js';
import { askingApp } from '../sign-in/asking-app.js';
import type { FormErrors } from '../sign-in/page.js';
import { SignUpClosedPage, SignUpPage } from './page.js';

const INVITE_MAX_LENGTH = 200;

/** Account creation, open, by invite or closed (SIGNUP). */
export function signUpRoutes(deps: { config: Config; db: Store }) {
  const { config, db } = deps;
  const app = new Hono<AppEnv>();
  const gate = csrfGate(config);
  const limits = {
    account: new SharedRateLimiter(db, config, 'signUpPerAccount', RATE_LIMITS.signUpPerAccount),
    ip: new SharedRateLimiter(db, config, 'signUpPerIp', RATE_LIMITS.signUpPerIp),
  };

  /** Whether SIGNUP lets this visitor (with this invite) create an account. */
  const signUpGate = async (invite: string | null, next: string | null) => {
    const usable = invite ? await findUsableInvite(db, invite) : null;
    if (config.signup === 'closed')
      return { ok: false as const, page: <SignUpClosedPage mode="closed" next={next} /> };
    if (config.signup === 'invite' && !usable) {
      return {
        ok: false as const,
        page: <SignUpClosedPage mode="invite" inviteProblem={Boolean(invite)} next={next} />,
      };
    }
    return { ok: true as const, invite: usable };
  };

  app.get('/sign-up', async (c) => {
    const next = safeNext(c.req.query('next'), config.publicUrl);
    const invite = c.req.query('invite')?.slice(0, INVITE_MAX_LENGTH) ?? null;
    const allowed = await signUpGate(invite, next);
    if (!allowed.ok) return privatePage(c, allowed.page, 403);
    if (c.get('user') && !invite) return c.redirect(next ?? '/account', 303);
    return privatePage(
      c,
      <SignUpPage
        c={c}
        next={next}
        app={await askingApp(db, next)}
        invite={allowed.invite ? invite : null}
      />,
    );
  });

  app.post('/sign-up', gate.sameOrigin, async (c) => {
    const form = await readForm(c);
    const next = safeNext(form.next, config.publicUrl);
    const invite = form.invite ? form.invite.slice(0, INVITE_MAX_LENGTH) : null;
    const password = form.password ?? '';
    const email = normaliseEmail((form.email ?? '').slice(0, EMAIL_MAX_LENGTH + 1));
    const render = async (errors: FormErrors, status: ContentfulStatusCode) =>
      privatePage(
        c,
        <SignUpPage
          c={c}
          email={email}
          next={next}
          app={await askingApp(db, next)}
          invite={invite}
          errors={errors}
        />,
        status,
      );

    if (!verifyCsrf(c, form)) {
      return render({ form: 'This form expired or was not sent from this page. Please try again.' }, 403);
    }
    const allowed = await signUpGate(invite, next);
    if (!allowed.ok) return privatePage(c, allowed.page, 403);

    const errors: FormErrors = {};
    const emailError = emailProblem(email);
    if (emailError) errors.email = emailError;
    const pwProblem = passwordProblem(password, email);
    if (pwProblem) errors.password = passwordProblemMessage(pwProblem);
    if (errors.email || errors.password) return render(errors, 400);

    const ip = clientAddressKey(c, config);
    for (const [limiter, key] of [
      [limits.ip, ip],
      [limits.account, email],
    ] as const) {
      const decision = await limiter.hit(key);
      if (!decision.allowed) return render({ form: tooManyAttempts(c, decision.retryAfterSeconds) }, 429);
    }

    const created = await createUser(db, { email, password, invite: allowed.invite });
    if (!created.ok) {
      if (created.reason === 'email_taken') {
        return render(
          { email: 'An account with this email already exists. Sign in instead, or use another address.' },
          409,
        );
      }
      return privatePage(c, <SignUpClosedPage mode="invite" inviteProblem next={next} />, 403);
    }
    c.get('log').info({ userId: created.user.id }, 'account created');
    await startSession(c, db, config, created.user.id);
    return c.redirect(next ?? '/account?welcome=1', 303);
  });

  return app;
}
