import type { Config } from '../config.js';
import type { OpenStore } from '../db/store/index.js';
import type { Logger } from '../logger.js';
import type { SecretBox } from '../security/secrets.js';
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

export function clientLookup(deps: OAuthDeps, refreshStaleDocument: boolean): ClientLookupOptions {
  return { cimd: deps.cimd, refreshStaleDocument };
}

/** RFC 8707 resource values are compared as normalised URLs (case of scheme and host, default port). */
export function sameResource(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
}
