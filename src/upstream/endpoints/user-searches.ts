import * as s from '../schemas.js';
import type { CallOptions, Query, UpstreamCredentials, UpstreamTransport } from '../transport.js';

/** User (account) searches on the search host: create, list, details, posts. */
export function userSearchEndpoints(t: UpstreamTransport) {
  return {
    createUserSearch(creds: UpstreamCredentials, body: Record<string, unknown>, o?: CallOptions) {
      return t.call(
        creds,
        { host: 'search', method: 'POST', path: '/api/iq/user_search', body },
        s.searchCreated,
        o,
      );
    },
    listUserSearches(creds: UpstreamCredentials, query: Query, o?: CallOptions) {
      return t.call(
        creds,
        { host: 'search', method: 'GET', path: '/api/iq/user_search', query },
        s.anyObject,
        o,
      );
    },
    getUserSearch(creds: UpstreamCredentials, id: number, o?: CallOptions) {
      return t.call(
        creds,
        { host: 'search', method: 'GET', path: `/api/iq/user_search/${id}` },
        s.searchDetails,
        o,
      );
    },
    getUserSearchPosts(creds: UpstreamCredentials, id: number, o?: CallOptions) {
      return t.call(
        creds,
        { host: 'search', method: 'GET', path: `/api/iq/user_search/${id}/posts_data` },
        s.postsData,
        o,
      );
    },
  };
}
