/** A client as the authorize and token endpoints see it, whatever way it registered. */
export interface OAuthClient {
  clientId: string;
  kind: 'dcr' | 'cimd';
  clientName: string | null;
  clientUri: string | null;
  logoUri: string | null;
  redirectUris: string[];
  grantTypes: string[];
  tokenEndpointAuthMethod: 'none' | 'client_secret_basic' | 'client_secret_post';
  applicationType: 'web' | 'native';
  /** SHA-256 of the secret for confidential clients. */
  secretHash: string | null;
  /** As read with the client (touchClient writes them only when they have moved far enough). */
  lastUsedAt: number;
  /** A DCR client's idle expiry, a CIMD document's cache expiry. */
  expiresAt: number | null;
}
