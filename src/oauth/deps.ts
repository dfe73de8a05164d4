import type { Context } from 'hono';
import { SharedRateLimiter } from '../accounts/rate-limits.js';
import type { Config } from '../config.js';
import type { OpenStore } from '../db/store/index.js';
import { clientAddressKey } from '../http/client-ip.js';
import type { Logger } from '../logger.js';
import { oncePer } from '../once-per.js';
import type { SecretBox } from '../security/secrets.js';
import { DOCUMENT_FETCHES_PER_IP } from './clients/document-fetches.js';
import type { ClientLookupOptions } from './clients/repository.js';

/** What the authorization server's endpoints need. */
export interface OAuthDeps {
  config: Config;
  db: OpenStore;
  logger: Logger;
  secrets: SecretBox;
  /** How CIMD documents are fetched (tests add their loopback CA here). */
  cimd: { allowPrivateHosts: boolean; ca?: string | undefined };
}

const documentFetches = oncePer(
  (deps: OAuthDeps) =>
    new SharedRateLimiter(deps.db, deps.config, 'documentFetchesPerIp', DOCUMENT_FETCHES_PER_IP),
);

/** How a request finds its client; a metadata document it makes us fetch counts against its address. */
export function clientLookup(
  deps: OAuthDeps,
  refreshStaleDocument: boolean,
  request: Context,
): ClientLookupOptions {
  return {
    cimd: deps.cimd,
    refreshStaleDocument,
    reserveFetch: () => documentFetches(deps).hit(clientAddressKey(request, deps.config)),
  };
}
