import { createHmac } from 'node:crypto';
import type { HitOutcome, RateLimitRule } from '../../accounts/rate-limits.js';
import type { Config } from '../../config.js';
import { SCOPES } from '../../oauth/scopes.js';
import { derivedKey } from '../../security/derived-keys.js';
import {
  isUpstreamTokenShaped,
  isUpstreamUserIdShaped,
  UPSTREAM_TOKEN_MAX_LENGTH,
  UPSTREAM_USER_ID_MAX_LENGTH,
} from '../../upstream/credential-shape.js';
import type { VerifyResult } from '../../upstream/verify-credential.js';
import type { UpstreamUserCaller } from './caller.js';

/** How long an upstream "yes" to a token is trusted before it is asked again. */
const VALID_FOR_MS = 5 * 60_000;
/** How long a rejected token is refused without asking upstream again (a client retrying in a loop). */
const REJECTED_FOR_MS = 60_000;
/** Verdicts kept at most; the oldest stored goes first. */
const MAX_VERDICTS = 10_000;

/**
 * Tokens upstream rejected, per client address: the 21st within 10 minutes is refused without asking
 * upstream (the credentials page allows a person as many checks in the same time).
 */
export const UPSTREAM_HEADER_REJECTIONS: RateLimitRule = { limit: 20, windowMs: 10 * 60_000 };

/** What /mcp makes of a request's upstream headers. */
export type HeaderAuth =
  /** Neither header: this request did not choose this way in. */
  | { kind: 'absent' }
  | { kind: 'accepted'; caller: UpstreamUserCaller }
  | {
      kind: 'refused';
      status: 401 | 429 | 503;
      /** One or two sentences naming what to send or do. */
      message: string;
      retryAfterSeconds?: number;
      /** True when OAuth is the only way in left (the operator turned headers off). */
      offerOAuth: boolean;
    };

export interface UpstreamHeaderDeps {
  config: Config;
  /** Asks upstream whether a token is valid (upstream/verify-credential.ts). */
  verify(token: string): Promise<VerifyResult>;
  /**
   * Tokens upstream rejected, counted per client address across instances (a guessing limit): each
   * check reserves one first, given back when the token turns out valid (SharedRateLimiter.hit).
   */
  rejections: { hit(key: string): Promise<HitOutcome> };
  now?: () => number;
}

type Verdict = { valid: boolean; httpStatus: number | null; until: number };

/**
 * The API description's hosted variant (docs/upstream.md, Two hosts, two headers): a client sends the
 * upstream token and user id as the two upstream headers, and /mcp acts as that upstream user with
 * every permission (the token already carries all of them upstream). Nothing is stored: the token is
 * checked once with upstream (`GET /api/usage`, which spends nothing) and the verdict kept in memory
 * under a keyed hash of the token, a few minutes for a valid one, one minute for a rejected one.
 * Rejections count against the client's address (SharedRateLimiter), so the server is no oracle for
 * guessing tokens. A refusal names what to send, and never carries a Bearer challenge: a client that
 * chose headers must not be sent into an OAuth sign-in that cannot fix its headers.
 */
export class UpstreamHeaderCheck {
  private readonly verdicts = new Map<string, Verdict>();
  private readonly checking = new Map<string, Promise<Verdict | null>>();
  private readonly key: Buffer;
  private readonly now: () => number;

  constructor(private readonly deps: UpstreamHeaderDeps) {
    this.key = derivedKey(deps.config, 'social-intel-mcp upstream-caller v1');
    this.now = deps.now ?? Date.now;
  }

  async resolve(
    header: (name: string) => string | undefined,
    clientAddress: () => string,
  ): Promise<HeaderAuth> {
    const { tokenHeader, userHeader } = this.deps.config.upstream;
    const token = header(tokenHeader);
    const userId = header(userHeader);
    if (token === undefined && userId === undefined) return { kind: 'absent' };
    const both = `${tokenHeader} and ${userHeader}`;
    if (!this.deps.config.mcp.acceptUpstreamHeaders)
      return refused(
        401,
        `This server does not accept the ${both} headers: its operator turned them off. Remove them and connect with OAuth (sign in when your client asks).`,
        true,
      );
    const missing = token === undefined ? tokenHeader : userId === undefined ? userHeader : null;
    if (missing !== null || token === undefined || userId === undefined)
      return refused(
        401,
        `The ${missing} header is missing: send ${tokenHeader} (your API token) and ${userHeader} (your user id) together.`,
      );
    if (!isUpstreamTokenShaped(token))
      return refused(
        401,
        `The ${tokenHeader} header is not an API token: one is at most ${UPSTREAM_TOKEN_MAX_LENGTH} letters, digits and punctuation, without spaces.`,
      );
    if (!isUpstreamUserIdShaped(userId))
      return refused(
        401,
        `The ${userHeader} header is not a user id: one is at most ${UPSTREAM_USER_ID_MAX_LENGTH} letters, digits, punctuation and inner spaces.`,
      );

    const tokenKey = this.hash(token);
    const verdict = this.kept(tokenKey) ?? (await this.check(tokenKey, token, clientAddress));
    if ('kind' in verdict) return verdict;
    if (!verdict.valid)
      return refused(
        401,
        `The upstream API rejected the token in ${tokenHeader}${verdict.httpStatus ? ` (HTTP ${verdict.httpStatus})` : ''}. Correct ${both} in this client's configuration; retrying unchanged will not help.`,
      );
    const key = this.hash(`${token}\u0000${userId}`);
    return {
      kind: 'accepted',
      caller: {
        kind: 'upstream',
        via: 'headers',
        key,
        connectionKey: `upstream:${key}`,
        clientId: 'upstream-headers',
        scopes: SCOPES,
        upstream: { token, userId },
      },
    };
  }

  /** Verdicts kept now (tests). */
  get size(): number {
    return this.verdicts.size;
  }

  /** A keyed hash (HMAC-SHA256 under a key derived from SECRET_KEY): the token never leaves memory. */
  private hash(text: string): string {
    return createHmac('sha256', this.key).update(text).digest('base64url').slice(0, 22);
  }

  private kept(tokenKey: string): Verdict | undefined {
    const verdict = this.verdicts.get(tokenKey);
    if (verdict && verdict.until > this.now()) return verdict;
    if (verdict) this.verdicts.delete(tokenKey);
    return undefined;
  }

  /** One upstream check per token at a time: concurrent requests with the same token share it. */
  private async check(
    tokenKey: string,
    token: string,
    clientAddress: () => string,
  ): Promise<Verdict | Extract<HeaderAuth, { kind: 'refused' }>> {
    // Reserved before asking, so parallel guesses cannot all pass a count made before any failed.
    const decision = await this.deps.rejections.hit(clientAddress());
    if (!decision.allowed) {
      const minutes = Math.ceil(decision.retryAfterSeconds / 60);
      return {
        ...refused(
          429,
          `Too many rejected API tokens from this address. Wait ${minutes <= 1 ? 'a minute' : `${minutes} minutes`}, then try again with a correct ${this.deps.config.upstream.tokenHeader}.`,
        ),
        retryAfterSeconds: decision.retryAfterSeconds,
      };
    }
    let pending = this.checking.get(tokenKey);
    if (!pending) {
      pending = this.ask(tokenKey, token).finally(() => this.checking.delete(tokenKey));
      this.checking.set(tokenKey, pending);
    }
    const verdict = await pending;
    // Only a rejected token keeps its count.
    if (verdict?.valid === false) return verdict;
    await decision.giveBack();
    if (verdict === null)
      return refused(
        503,
        `The upstream API could not be reached to check ${this.deps.config.upstream.tokenHeader}. Try again in a minute.`,
      );
    return verdict;
  }

  /** Upstream's verdict, kept; null when upstream gave none (unreachable, 5xx), which is not kept. */
  private async ask(tokenKey: string, token: string): Promise<Verdict | null> {
    const result = await this.deps.verify(token);
    if (result.status === 'unavailable') return null;
    const valid = result.status === 'valid';
    const verdict: Verdict = {
      valid,
      httpStatus: result.status === 'rejected' ? result.httpStatus : null,
      until: this.now() + (valid ? VALID_FOR_MS : REJECTED_FOR_MS),
    };
    if (this.verdicts.size >= MAX_VERDICTS) {
      const oldest = this.verdicts.keys().next();
      if (!oldest.done) this.verdicts.delete(oldest.value);
    }
    this.verdicts.set(tokenKey, verdict);
    return verdict;
  }
}

function refused(
  status: 401 | 429 | 503,
  message: string,
  offerOAuth = false,
): Extract<HeaderAuth, { kind: 'refused' }> {
  return { kind: 'refused', status, message, offerOAuth };
}
