import * as s from '../schemas.js';
import type { CallOptions, Query, UpstreamCredentials, UpstreamTransport } from '../transport.js';

/** Expert searches on the search host (keys with the producer permission only). */
export function expertSearchEndpoints(t: UpstreamTransport) {
  return {
    createExpertSearch(creds: UpstreamCredentials, body: Record<string, unknown>, o?: CallOptions) {
      return t.call(
        creds,
        { host: 'search', method: 'POST', path: '/api/search', body },
        s.expertSearchCreated,
        o,
      );
    },
    listExpertSearches(creds: UpstreamCredentials, query: Query, o?: CallOptions) {
      return t.call(creds, { host: 'search', method: 'GET', path: '/api/search', query }, s.anyObject, o);
    },
    getExpertSearch(creds: UpstreamCredentials, id: number, o?: CallOptions) {
      return t.call(
        creds,
        { host: 'search', method: 'GET', path: `/api/search/${id}` },
        s.expertSearchDetails,
        o,
      );
    },
  };
}
