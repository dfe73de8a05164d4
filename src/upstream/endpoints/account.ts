import * as s from '../schemas.js';
import type { CallOptions, UpstreamCredentials, UpstreamTransport } from '../transport.js';

/** The upstream account on the search host: usage, integration setup (webhook), credits. */
export function accountEndpoints(t: UpstreamTransport) {
  return {
    /** GET /api/usage sends only the token header (docs/upstream.md, Two hosts, two headers). */
    getUsage(creds: UpstreamCredentials, month: string | undefined, o?: CallOptions) {
      return t.call(
        creds,
        { host: 'search', method: 'GET', path: '/api/usage', query: { month }, sendUserId: false },
        s.anyObject,
        o,
      );
    },
    getSetup(creds: UpstreamCredentials, o?: CallOptions) {
      return t.call(creds, { host: 'search', method: 'GET', path: '/api/setup' }, s.anyObject, o);
    },
    updateSetup(creds: UpstreamCredentials, returnUrl: string, o?: CallOptions) {
      return t.call(
        creds,
        { host: 'search', method: 'PUT', path: '/api/setup', body: { return_url: returnUrl } },
        s.anyObject,
        o,
      );
    },
    getCredits(creds: UpstreamCredentials, o?: CallOptions) {
      return t.call(creds, { host: 'search', method: 'GET', path: '/api/iq/credits' }, s.credits, o);
    },
  };
}
