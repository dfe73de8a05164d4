export {
  type CallOptions,
  UpstreamClient,
  type UpstreamClientOptions,
  type UpstreamCredentials,
} from './client.js';
export { type CreditShortfall, UpstreamError, type UpstreamErrorKind } from './errors.js';
