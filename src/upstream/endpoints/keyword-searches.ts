import * as s from '../schemas.js';
import type { CallOptions, Query, UpstreamCredentials, UpstreamTransport } from '../transport.js';

/** Keyword searches on the search host: create, list, details, posts, topic trees. */
export function keywordSearchEndpoints(t: UpstreamTransport) {
  return {
    createKeywordSearch(creds: UpstreamCredentials, body: Record<string, unknown>, o?: CallOptions) {
      return t.call(
        creds,
        { host: 'search', method: 'POST', path: '/api/iq/keyword_search', body },
        s.searchCreated,
        o,
      );
    },
    listKeywordSearches(creds: UpstreamCredentials, query: Query, o?: CallOptions) {
      return t.call(
        creds,
        { host: 'search', method: 'GET', path: '/api/iq/keyword_search', query },
        s.anyObject,
        o,
      );
    },
    getKeywordSearch(creds: UpstreamCredentials, id: number, o?: CallOptions) {
      return t.call(
        creds,
        { host: 'search', method: 'GET', path: `/api/iq/keyword_search/${id}` },
        s.searchDetails,
        o,
      );
    },
    getKeywordSearchPosts(
      creds: UpstreamCredentials,
      id: number,
      platform: string | undefined,
      o?: CallOptions,
    ) {
      return t.call(
        creds,
        {
          host: 'search',
          method: 'GET',
          path: `/api/iq/keyword_search/${id}/posts_data`,
          query: { platform },
        },
        s.postsData,
        o,
      );
    },
    getKeywordSearchTopicTree(
      creds: UpstreamCredentials,
      id: number,
      platform: string | undefined,
      o?: CallOptions,
    ) {
      return t.call(
        creds,
        {
          host: 'search',
          method: 'GET',
          path: `/api/iq/keyword_search/${id}/topic_tree`,
          query: { platform },
        },
        s.anyObject,
        o,
      );
    },
  };
}
