import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REGISTRATIONS_PER_IP } from '../../src/oauth/register.js';
import type { SandboxServer } from '../../src/sandbox/server.js';
import { RATE_LIMITS } from '../../src/web/rate-limits.js';
import { freshEmail, PASSWORD, signedIn, startFormSecurityServer } from '../helpers/form-security.js';
import { FormClient } from '../helpers/forms.js';
import type { TestServer } from '../helpers/server.js';

/**
 * Every limit that guards expensive or guessable work reserves its count before the work, in one
 * statement of the database, so requests arriving together cannot all pass a check made before any of
 * them was counted. Each limit is hit by many parallel requests; the work done is at most the limit.
 */
let sandbox: SandboxServer;
let server: TestServer;
beforeAll(async () => {
  ({ sandbox, server } = await startFormSecurityServer());
});
afterAll(async () => {
  await server?.close();
  await sandbox?.close();
});

let addresses = 0;
/** An address (as the trusted proxy reports it) no other request of this file uses. */
const freshAddress = () => `198.18.${Math.floor(++addresses / 250)}.${addresses % 250}`;

/** Signs in with a browser of its own that first loads the form; answers the POST's status. */
async function signIn(email: string, password: string, address: string): Promise<number> {
  const client = new FormClient(server.url, address);
  await client.get('/sign-in');
  return (await client.post('/sign-in', { email, password })).status;
}

function tally(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const s of statuses) counts[s] = (counts[s] ?? 0) + 1;
  return counts;
}

describe('sign-in limits hold under concurrency: 80 parallel wrong passwords are checked at most as often as the limits allow', () => {
  const perAccount = RATE_LIMITS.signInPerAccount.limit;
  const perAddress = RATE_LIMITS.signInPerIp.limit;

  it(`one address, one account: at most ${perAccount} checked, the rest 429`, async () => {
    const email = freshEmail();
    await signedIn(server, email);
    const address = freshAddress();
    const statuses = await Promise.all(
      Array.from({ length: 80 }, (_, i) => signIn(email, `wrong password ${i}`, address)),
    );
    expect(tally(statuses)).toEqual({ 401: perAccount, 429: 80 - perAccount });
  });

  it(`one address, 80 accounts: at most ${perAddress} checked, the rest 429`, async () => {
    const address = freshAddress();
    const statuses = await Promise.all(
      Array.from({ length: 80 }, (_, i) => signIn(freshEmail(), `wrong password ${i}`, address)),
    );
    expect(tally(statuses)).toEqual({ 401: perAddress, 429: 80 - perAddress });
  });

  it(`80 addresses, one account: at most ${perAccount} checked, the rest 429`, async () => {
    const email = freshEmail();
    await signedIn(server, email);
    const statuses = await Promise.all(
      Array.from({ length: 80 }, (_, i) => signIn(email, `wrong password ${i}`, freshAddress())),
    );
    expect(tally(statuses)).toEqual({ 401: perAccount, 429: 80 - perAccount });
  });

  it('a right password gives its reservation back: the address keeps its whole budget for failures', async () => {
    const address = freshAddress();
    const email = freshEmail();
    await signedIn(server, email);
    for (let i = 0; i < 5; i++) expect(await signIn(email, PASSWORD, address)).toBe(303);
    const statuses = await Promise.all(
      Array.from({ length: perAddress }, (_, i) => signIn(freshEmail(), `wrong password ${i}`, address)),
    );
    expect(tally(statuses)).toEqual({ 401: perAddress });
    expect(await signIn(freshEmail(), 'wrong again', address)).toBe(429);
  });
});

/** A limit, the work it guards done from one address (or person) `n` times at once, and the answers. */
interface LimitCase {
  limit: string;
  allowed: number;
  /** Starts the parallel attempts; answers each one's status. */
  attempts(n: number): Promise<number[]>;
  /** The status of an attempt that did the work. */
  done: number;
}

const LIMITS: LimitCase[] = [
  {
    limit: 'sign-ups per address',
    allowed: RATE_LIMITS.signUpPerIp.limit,
    done: 303,
    attempts: (n) => {
      const address = freshAddress();
      return Promise.all(
        Array.from({ length: n }, async () => {
          const client = new FormClient(server.url, address);
          return (await client.signUp(freshEmail(), PASSWORD)).status;
        }),
      );
    },
  },
  {
    limit: 'client registrations per address',
    allowed: REGISTRATIONS_PER_IP.limit,
    done: 201,
    attempts: (n) => {
      const address = freshAddress();
      return Promise.all(
        Array.from({ length: n }, async () => {
          const res = await fetch(`${server.url}/register`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
            body: JSON.stringify({
              redirect_uris: ['http://localhost:3000/cb'],
              token_endpoint_auth_method: 'none',
            }),
          });
          await res.arrayBuffer();
          return res.status;
        }),
      );
    },
  },
  {
    limit: 'API token checks per person',
    allowed: RATE_LIMITS.credentialChecksPerUser.limit,
    // A token the API rejects: checked (400), nothing saved.
    done: 400,
    attempts: async (n) => {
      const person = await signedIn(server);
      await person.get('/account/credentials');
      const csrf = person.csrf();
      return Promise.all(
        Array.from({ length: n }, async (_, i) => {
          const res = await person.post(
            '/account/credentials',
            { token: `sim_not_a_real_token_${i}`, upstream_user_id: 'limits' },
            { csrf },
          );
          return res.status;
        }),
      );
    },
  },
  {
    limit: 'wrong current passwords per account (the password change form shares sign-in’s budget)',
    allowed: RATE_LIMITS.signInPerAccount.limit,
    // Checked and wrong: the form again, saying so.
    done: 400,
    attempts: async (n) => {
      const person = await signedIn(server);
      await person.get('/account/password');
      const csrf = person.csrf();
      return Promise.all(
        Array.from({ length: n }, async (_, i) => {
          const res = await person.post(
            '/account/password',
            { current_password: `wrong password ${i}`, new_password: 'quartz lantern meadow fig' },
            { csrf },
          );
          return res.status;
        }),
      );
    },
  },
];

describe('every other limit holds under concurrency: the work is done at most as often as the limit allows', () => {
  it.each(LIMITS)('$limit', async ({ allowed, done, attempts }) => {
    const statuses = await attempts(allowed + 10);
    expect(tally(statuses)).toEqual({ [done]: allowed, 429: 10 });
  });
});
