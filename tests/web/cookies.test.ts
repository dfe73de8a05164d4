import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { cookiePolicy } from '../../src/web/cookies.js';
import { TEST_SECRET_KEY } from '../helpers/temp.js';

const policyFor = (publicUrl: string) =>
  cookiePolicy(
    loadConfig({ PUBLIC_URL: publicUrl, SECRET_KEY: TEST_SECRET_KEY, DATABASE_PATH: '/tmp/unused.db' }),
  );

describe('cookie policy', () => {
  it.each([
    ['https://mcp.example.com', true],
    ['http://localhost:8787', true],
    ['http://127.0.0.1:8787', true],
    ['http://[::1]:8787', true],
  ])('%s: __Host- names and Secure', (url, secure) => {
    expect(policyFor(url)).toEqual({
      secure,
      sessionName: '__Host-sim_session',
      csrfName: '__Host-sim_csrf',
    });
  });

  it('plain http on another host: no prefix and no Secure, or the browser would drop the cookie', () => {
    expect(policyFor('http://intranet.example:8787')).toEqual({
      secure: false,
      sessionName: 'sim_session',
      csrfName: 'sim_csrf',
    });
  });
});
