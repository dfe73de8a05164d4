import type { Context } from 'hono';
import { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { recordAccountEvent } from '../accounts/audit.js';
import {
  defaultUpstreamUserId,
  getCredentialSummary,
  removeUpstreamCredential,
  saveUpstreamCredential,
  UPSTREAM_TOKEN_MAX_LENGTH,
  UPSTREAM_USER_ID_MAX_LENGTH,
} from '../accounts/credentials.js';
import { findUsableInvite } from '../accounts/invites.js';
import { createSession, endAllSessions, endSession, SESSION_COOKIE_MAX_AGE_S } from '../accounts/sessions.js';
import {
  authenticate,
  createUser,
  EMAIL_MAX_LENGTH,
  emailProblem,
  normaliseEmail,
} from '../accounts/users.js';
import {
  canManageCredentials,
  getMembership,
  getPersonalWorkspaceId,
  listWorkspacesForUser,
} from '../accounts/workspaces.js';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import { clientIp } from '../http/client-ip.js';
import type { AppEnv, SessionUser } from '../http/env.js';
import { metrics } from '../metrics/index.js';
import {
  dummyPasswordHash,
  PASSWORD_MAX_LENGTH,
  passwordProblem,
  passwordProblemMessage,
} from '../security/passwords.js';
import { RateLimiter } from '../security/rate-limit.js';
import type { SecretBox } from '../security/secrets.js';
import { requestSandboxCredential, verifyUpstreamToken } from '../upstream/verify-credential.js';
import { AccountPage, type CredentialErrors, CredentialsPage } from './account-pages.js';
import { type FormErrors, MessagePage, SignInPage, SignUpClosedPage, SignUpPage } from './auth-pages.js';
import { clearCookie, cookiePolicy, writeCookie } from './cookies.js';
import { originCheck, verifyCsrf } from './csrf.js';
import { privatePage } from './layout.js';
import { requireUser, sessionToken } from './session.js';

export interface AccountRoutesDeps {
  config: Config;
  db: Db;
  secrets: SecretBox;
  /** Where upstream calls go (the real service or the sandbox): credentials are verified there. */
  upstream: { searchUrl: string; agentUrl: string };
}

/**
 * Brute-force limits (per instance, DESIGN.md §7). Sign-in counts failures, so a person who types
 * their password right is never slowed down; sign-up counts attempts that reach password hashing.
 */
export const RATE_LIMITS = {
  /** Wrong passwords per account: the 11th within 15 minutes is refused without checking. */
  signInPerAccount: { limit: 10, windowMs: 15 * 60_000 },
  /** Failed sign-ins per client IP (many accounts from one address: credential stuffing). */
  signInPerIp: { limit: 50, windowMs: 15 * 60_000 },
  signUpPerAccount: { limit: 5, windowMs: 60 * 60_000 },
  signUpPerIp: { limit: 20, windowMs: 60 * 60_000 },
  /** Token checks against the upstream per user (we must not become a token-guessing oracle). */
  credentialChecksPerUser: { limit: 20, windowMs: 10 * 60_000 },
} as const;

const NEXT_MAX_LENGTH = 2048;
const WORKSPACE_ID_MAX_LENGTH = 64;
/** Visible ASCII without spaces: an API token travels as an HTTP header value. */
const TOKEN_PATTERN = /^[\x21-\x7E]+$/;
/** Visible ASCII and inner spaces: also a header value. */
const USER_ID_PATTERN = /^[\x21-\x7E](?:[\x20-\x7E]*[\x21-\x7E])?$/;

/**
 * A same-origin relative path to return to after sign-in, or null: it must start with exactly one
 * '/' (so not '//host' or '/\host', which browsers treat as another origin) and contain no control
 * characters or backslashes.
 */
export function safeNext(value: string | undefined | null, publicUrl: string): string | null {
  if (!value || value.length > NEXT_MAX_LENGTH) return null;
  if (!value.startsWith('/') || value.startsWith('//')) return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\\\x00-\x1F\x7F]/.test(value)) return null;
  try {
    const base = new URL(publicUrl);
    const url = new URL(value, base);
    if (url.origin !== base.origin) return null;
    return `${url.pathname}${url.search}${url.hash}`;
  } catch {
    return null;
  }
}

type Form = Record<string, string>;

/** The form's string fields; files and unreadable bodies give nothing (the CSRF check then fails). */
async function readForm(c: Context<AppEnv>): Promise<Form> {
  try {
    const body = await c.req.parseBody();
    const form: Form = {};
    for (const [key, value] of Object.entries(body)) {
      if (typeof value === 'string') form[key] = value;
    }
    return form;
  } catch {
    return {};
  }
}

function minutes(seconds: number): string {
  const m = Math.ceil(seconds / 60);
  return m <= 1 ? 'a minute' : `${m} minutes`;
}

export function accountRoutes(deps: AccountRoutesDeps) {
  const { config, db, secrets, upstream } = deps;
  const app = new Hono<AppEnv>();
  const policy = cookiePolicy(config);
  const limits = {
    signInAccount: new RateLimiter(RATE_LIMITS.signInPerAccount),
    signInIp: new RateLimiter(RATE_LIMITS.signInPerIp),
    signUpAccount: new RateLimiter(RATE_LIMITS.signUpPerAccount),
    signUpIp: new RateLimiter(RATE_LIMITS.signUpPerIp),
    credentialChecks: new RateLimiter(RATE_LIMITS.credentialChecksPerUser),
  };
  // Made now, so the first sign-in with an unknown email is not the slow one that tells.
  void dummyPasswordHash();

  const page = privatePage;

  const refused = (c: Context<AppEnv>) =>
    page(
      c,
      <MessagePage
        title="Request refused"
        message="This form was not sent from this site, so it was not accepted. If you sent it, go back, reload the page and try again."
        link={{ href: '/account', text: 'Go to your account' }}
      />,
      403,
    );
  const sameOrigin = originCheck(config, refused);

  const startSession = (c: Context<AppEnv>, userId: string) => {
    // A new id at every sign-in: an id planted before sign-in is never promoted (no fixation).
    const previous = sessionToken(c, config);
    if (previous) endSession(db, previous);
    const token = createSession(db, userId, c.req.header('user-agent') ?? null);
    writeCookie(c, config, policy.sessionName, token, SESSION_COOKIE_MAX_AGE_S);
  };

  const tooMany = (c: Context<AppEnv>, retryAfterSeconds: number) => {
    c.header('Retry-After', String(retryAfterSeconds));
    return `Too many attempts. Wait ${minutes(retryAfterSeconds)}, then try again.`;
  };

  // ---- Sign-up ----------------------------------------------------------------------------------

  const signUpGate = (
    invite: string | null,
  ):
    | { ok: true; invite: ReturnType<typeof findUsableInvite> }
    | { ok: false; page: ReturnType<typeof SignUpClosedPage> } => {
    const usable = invite ? findUsableInvite(db, invite) : null;
    if (config.signup === 'closed') return { ok: false, page: <SignUpClosedPage mode="closed" /> };
    if (config.signup === 'invite' && !usable) {
      return { ok: false, page: <SignUpClosedPage mode="invite" inviteProblem={Boolean(invite)} /> };
    }
    return { ok: true, invite: usable };
  };

  app.get('/sign-up', (c) => {
    const next = safeNext(c.req.query('next'), config.publicUrl);
    const invite = c.req.query('invite')?.slice(0, 200) ?? null;
    const gate = signUpGate(invite);
    if (!gate.ok) return page(c, gate.page, 403);
    if (c.get('user') && !invite) return c.redirect(next ?? '/account', 303);
    return page(c, <SignUpPage c={c} next={next} invite={gate.invite ? invite : null} />);
  });

  app.post('/sign-up', sameOrigin, async (c) => {
    const form = await readForm(c);
    const next = safeNext(form.next, config.publicUrl);
    const invite = form.invite ? form.invite.slice(0, 200) : null;
    const rawEmail = form.email ?? '';
    const password = form.password ?? '';
    const email = normaliseEmail(rawEmail.slice(0, EMAIL_MAX_LENGTH + 1));
    const render = (errors: FormErrors, status: ContentfulStatusCode) =>
      page(c, <SignUpPage c={c} email={email} next={next} invite={invite} errors={errors} />, status);

    if (!verifyCsrf(c, form)) {
      return render({ form: 'This form expired or was not sent from this page. Please try again.' }, 403);
    }
    const gate = signUpGate(invite);
    if (!gate.ok) return page(c, gate.page, 403);

    const errors: FormErrors = {};
    const emailError = emailProblem(email);
    if (emailError) errors.email = emailError;
    const pwProblem = passwordProblem(password, email);
    if (pwProblem) errors.password = passwordProblemMessage(pwProblem);
    if (errors.email || errors.password) return render(errors, 400);

    const ip = clientIp(c, config);
    for (const [limiter, key] of [
      [limits.signUpIp, ip],
      [limits.signUpAccount, email],
    ] as const) {
      const decision = limiter.hit(key);
      if (!decision.allowed) return render({ form: tooMany(c, decision.retryAfterSeconds) }, 429);
    }

    const created = await createUser(db, { email, password, invite: gate.invite });
    if (!created.ok) {
      if (created.reason === 'email_taken') {
        return render(
          { email: 'An account with this email already exists. Sign in instead, or use another address.' },
          409,
        );
      }
      return page(c, <SignUpClosedPage mode="invite" inviteProblem />, 403);
    }
    c.get('log').info({ userId: created.user.id }, 'account created');
    startSession(c, created.user.id);
    return c.redirect(next ?? '/account?welcome=1', 303);
  });

  // ---- Sign-in ----------------------------------------------------------------------------------

  app.get('/sign-in', (c) => {
    const next = safeNext(c.req.query('next'), config.publicUrl);
    if (c.get('user')) return c.redirect(next ?? '/account', 303);
    const reason = c.req.query('reason') ?? null;
    return page(c, <SignInPage c={c} next={next} notice={reason} />);
  });

  app.post('/sign-in', sameOrigin, async (c) => {
    const form = await readForm(c);
    const next = safeNext(form.next, config.publicUrl);
    const email = normaliseEmail((form.email ?? '').slice(0, EMAIL_MAX_LENGTH + 1));
    const password = form.password ?? '';
    const render = (errors: FormErrors, status: ContentfulStatusCode) =>
      page(c, <SignInPage c={c} email={email} next={next} errors={errors} />, status);

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
    const ip = clientIp(c, config);
    for (const [limiter, key] of [
      [limits.signInIp, ip],
      [limits.signInAccount, email],
    ] as const) {
      const decision = limiter.check(key);
      if (!decision.allowed) {
        recordAccountEvent(db, { kind: 'sign_in_throttled', status: '429', detail: { ip } });
        return render({ form: tooMany(c, decision.retryAfterSeconds) }, 429);
      }
    }

    // Over-long input is a wrong password; it is not worth hashing.
    const user =
      email.length <= EMAIL_MAX_LENGTH && password.length <= PASSWORD_MAX_LENGTH
        ? await authenticate(db, email, password)
        : null;
    if (!user) {
      limits.signInIp.record(ip);
      limits.signInAccount.record(email);
      recordAccountEvent(db, { kind: 'sign_in_failed', status: '401', detail: { ip } });
      c.get('log').info({ event: 'sign_in_failed' }, 'sign-in failed');
      // One message whether the email is unknown or the password wrong.
      return render({ password: 'The email or password is not right. Check both and try again.' }, 401);
    }
    limits.signInAccount.reset(email);
    startSession(c, user.id);
    recordAccountEvent(db, { kind: 'sign_in', userId: user.id, detail: { ip } });
    return c.redirect(next ?? '/account', 303);
  });

  // ---- Sign-out ---------------------------------------------------------------------------------

  app.post('/sign-out', sameOrigin, async (c) => {
    const form = await readForm(c);
    const token = sessionToken(c, config);
    if (c.get('user') && token) {
      if (!verifyCsrf(c, form)) return refused(c);
      endSession(db, token);
    }
    clearCookie(c, config, policy.sessionName);
    return c.redirect('/sign-in?reason=signed_out', 303);
  });

  app.post('/sign-out-everywhere', sameOrigin, async (c) => {
    const user = requireUser(c);
    if (user instanceof Response) return user;
    const form = await readForm(c);
    if (!verifyCsrf(c, form)) return refused(c);
    const ended = endAllSessions(db, user.id);
    recordAccountEvent(db, { kind: 'signed_out_everywhere', userId: user.id, detail: { sessions: ended } });
    c.get('log').info({ userId: user.id, ended }, 'signed out everywhere');
    clearCookie(c, config, policy.sessionName);
    return c.redirect('/sign-in?reason=signed_out_everywhere', 303);
  });

  // ---- Account ----------------------------------------------------------------------------------

  app.get('/account', (c) => {
    const user = requireUser(c);
    if (user instanceof Response) return user;
    const done = c.req.query('done');
    const notice = c.req.query('welcome')
      ? 'Your account is ready. Next, link your API credentials so your AI clients can use the tools.'
      : done === 'team_deleted'
        ? 'Team deleted.'
        : done === 'left_team'
          ? 'You left the team. Your connected apps there were disconnected.'
          : null;
    return page(
      c,
      <AccountPage c={c} user={user} workspaces={listWorkspacesForUser(db, user.id)} notice={notice} />,
    );
  });

  // ---- Upstream credentials -----------------------------------------------------------------------

  /** The workspace the request names (default: personal) if the user is a member of it. */
  const workspaceFor = (user: SessionUser, requested: string | undefined) => {
    const id = requested ? requested.slice(0, WORKSPACE_ID_MAX_LENGTH) : getPersonalWorkspaceId(db, user.id);
    if (!id) return null;
    const membership = getMembership(db, id, user.id);
    return membership ? { id, ...membership } : null;
  };

  const notAWorkspace = (c: Context<AppEnv>, user: SessionUser) =>
    page(
      c,
      <MessagePage
        title="Workspace not found"
        message="There is no such workspace, or you are not a member of it."
        signedInAs={user.email}
        csrfToken={c.get('csrfToken')}
        link={{ href: '/account', text: 'Back to your account' }}
      />,
      404,
    );

  const renderCredentials = (
    c: Context<AppEnv>,
    user: SessionUser,
    workspace: NonNullable<ReturnType<typeof workspaceFor>>,
    options: {
      next: string | null;
      notice?: string | null;
      errors?: CredentialErrors;
      upstreamUserId?: string;
    },
    status: ContentfulStatusCode = 200,
  ) => {
    const credential = getCredentialSummary(db, workspace.id);
    return page(
      c,
      <CredentialsPage
        c={c}
        user={user}
        workspace={{ id: workspace.id, name: workspace.name, kind: workspace.kind, role: workspace.role }}
        workspaces={listWorkspacesForUser(db, user.id)}
        credential={credential}
        canManage={canManageCredentials(workspace.role)}
        sandboxMode={config.sandboxMode}
        next={options.next}
        upstreamUserId={
          options.upstreamUserId ?? workspace.upstreamUserId ?? credential?.upstreamUserId ?? ''
        }
        notice={options.notice ?? null}
        errors={options.errors ?? {}}
      />,
      status,
    );
  };

  const CREDENTIAL_NOTICES: Record<string, string> = {
    saved: 'Credentials verified and saved.',
    removed: 'Credentials removed. Tool calls in this workspace will fail until you link new ones.',
  };

  app.get('/account/credentials', (c) => {
    const user = requireUser(c);
    if (user instanceof Response) return user;
    const workspace = workspaceFor(user, c.req.query('workspace'));
    if (!workspace) return notAWorkspace(c, user);
    const done = c.req.query('done');
    return renderCredentials(c, user, workspace, {
      next: safeNext(c.req.query('next'), config.publicUrl),
      notice: done ? (CREDENTIAL_NOTICES[done] ?? null) : null,
    });
  });

  const afterChange = (c: Context<AppEnv>, workspaceId: string, done: string, next: string | null) =>
    c.redirect(
      next ?? `/account/credentials?${new URLSearchParams({ workspace: workspaceId, done }).toString()}`,
      303,
    );

  app.post('/account/credentials', sameOrigin, async (c) => {
    const user = requireUser(c);
    if (user instanceof Response) return user;
    const form = await readForm(c);
    if (!verifyCsrf(c, form)) return refused(c);
    const workspace = workspaceFor(user, form.workspace);
    if (!workspace) return notAWorkspace(c, user);
    const next = safeNext(form.next, config.publicUrl);
    const sandbox = form.action === 'sandbox';
    const enteredUserId = (form.upstream_user_id ?? '').trim().slice(0, UPSTREAM_USER_ID_MAX_LENGTH + 1);
    const render = (errors: CredentialErrors, status: ContentfulStatusCode) =>
      renderCredentials(c, user, workspace, { next, errors, upstreamUserId: enteredUserId }, status);

    if (!canManageCredentials(workspace.role)) {
      return render({ form: "Only the workspace's owners and admins can change its credentials." }, 403);
    }

    let token: string;
    let upstreamUserId: string;
    if (sandbox) {
      if (!config.sandboxMode)
        return render({ form: 'Sandbox credentials exist only in sandbox mode.' }, 400);
      const decision = limits.credentialChecks.hit(user.id);
      if (!decision.allowed) return render({ form: tooMany(c, decision.retryAfterSeconds) }, 429);
      const created = await requestSandboxCredential(upstream.searchUrl);
      if (!created) {
        return render({ form: 'The sandbox did not hand out a credential. Try again in a moment.' }, 503);
      }
      token = created;
      upstreamUserId = defaultUpstreamUserId(user.id);
    } else {
      token = (form.token ?? '').trim();
      upstreamUserId = enteredUserId;
      const errors: CredentialErrors = {};
      if (!token) errors.token = 'Enter the API token from your API account.';
      else if (token.length > UPSTREAM_TOKEN_MAX_LENGTH)
        errors.token = `An API token has at most ${UPSTREAM_TOKEN_MAX_LENGTH} characters.`;
      else if (!TOKEN_PATTERN.test(token))
        errors.token = 'An API token has only letters, digits and punctuation, without spaces.';
      if (!upstreamUserId) errors.upstreamUserId = 'Enter your user ID.';
      else if (upstreamUserId.length > UPSTREAM_USER_ID_MAX_LENGTH)
        errors.upstreamUserId = `A user ID has at most ${UPSTREAM_USER_ID_MAX_LENGTH} characters.`;
      else if (!USER_ID_PATTERN.test(upstreamUserId))
        errors.upstreamUserId = 'A user ID has only letters, digits, punctuation and spaces.';
      if (errors.token || errors.upstreamUserId) return render(errors, 400);
      const decision = limits.credentialChecks.hit(user.id);
      if (!decision.allowed) return render({ form: tooMany(c, decision.retryAfterSeconds) }, 429);
    }

    const verdict = await verifyUpstreamToken({
      searchUrl: upstream.searchUrl,
      tokenHeader: config.upstream.tokenHeader,
      token,
      observe: metrics.observeUpstream,
    });
    if (verdict.status === 'rejected') {
      c.get('log').info(
        { userId: user.id, workspaceId: workspace.id, upstreamStatus: verdict.httpStatus },
        'upstream rejected token',
      );
      return render(
        {
          token: `The API rejected this token (HTTP ${verdict.httpStatus}). Check that you copied all of it and that it has not been rotated. Nothing was saved.`,
        },
        400,
      );
    }
    if (verdict.status === 'unavailable') {
      c.get('log').warn(
        { workspaceId: workspace.id, reason: verdict.reason },
        'could not verify upstream token',
      );
      return render(
        {
          form: 'We could not verify the token with the API just now, so nothing was saved. Please try again in a moment.',
        },
        503,
      );
    }
    saveUpstreamCredential(db, secrets, {
      workspaceId: workspace.id,
      linkedBy: user.id,
      token,
      upstreamUserId,
      verifiedAt: Date.now(),
    });
    c.get('log').info({ userId: user.id, workspaceId: workspace.id, sandbox }, 'upstream credential linked');
    return afterChange(c, workspace.id, 'saved', next);
  });

  app.post('/account/credentials/remove', sameOrigin, async (c) => {
    const user = requireUser(c);
    if (user instanceof Response) return user;
    const form = await readForm(c);
    if (!verifyCsrf(c, form)) return refused(c);
    const workspace = workspaceFor(user, form.workspace);
    if (!workspace) return notAWorkspace(c, user);
    if (!canManageCredentials(workspace.role)) {
      return renderCredentials(
        c,
        user,
        workspace,
        {
          next: null,
          errors: { form: "Only the workspace's owners and admins can change its credentials." },
        },
        403,
      );
    }
    removeUpstreamCredential(db, workspace.id, user.id);
    c.get('log').info({ userId: user.id, workspaceId: workspace.id }, 'upstream credential removed');
    return afterChange(c, workspace.id, 'removed', null);
  });

  return app;
}
