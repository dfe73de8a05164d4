import { accountEndpoints } from './endpoints/account.js';
import { expertSearchEndpoints } from './endpoints/expert-searches.js';
import { keywordSearchEndpoints } from './endpoints/keyword-searches.js';
import { runEndpoints } from './endpoints/runs.js';
import { scheduleEndpoints } from './endpoints/schedules.js';
import { userSearchEndpoints } from './endpoints/user-searches.js';
import { type UpstreamClientOptions, UpstreamTransport } from './transport.js';

export type {
  AttemptObserver,
  CallOptions,
  Host,
  RequestSpec,
  UpstreamClientOptions,
  UpstreamCredentials,
  UpstreamLogger,
} from './transport.js';

/**
 * The typed client for both upstream hosts: one transport and every endpoint group on it, so a tool
 * calls `client.getKeywordSearch(creds, id)`. Build one per process and share it.
 */
export function createUpstreamClient(options: UpstreamClientOptions) {
  const transport = new UpstreamTransport(options);
  return {
    /** The raw wire, for calls no endpoint method covers (the credential check). */
    request: transport.request.bind(transport),
    call: transport.call.bind(transport),
    ...keywordSearchEndpoints(transport),
    ...userSearchEndpoints(transport),
    ...expertSearchEndpoints(transport),
    ...accountEndpoints(transport),
    ...runEndpoints(transport),
    ...scheduleEndpoints(transport),
  };
}

export type UpstreamClient = ReturnType<typeof createUpstreamClient>;
