import { z } from 'zod';
import { checkRedirectUri, inferApplicationType } from '../redirect-uris.js';

const MAX_REDIRECT_URIS = 20;

/** An https URL without credentials, short enough to show: the only cosmetic URL worth keeping. */
function isUsableHttpsUrl(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 2000 || !URL.canParse(value)) return false;
  const url = new URL(value);
  return url.protocol === 'https:' && !url.username && !url.password;
}

/**
 * A cosmetic URL (RFC 7591 §2 client_uri, logo_uri, tos_uri, policy_uri): nothing depends on it, so
 * an unusable one (http on localhost, not a URL, not a string) is dropped rather than a reason to refuse
 * the registration (§3.2.1 lets the server replace submitted values; the response shows what was kept).
 */
const cosmeticUrl = z.unknown().transform((v): string | undefined => (isUsableHttpsUrl(v) ? v : undefined));

/**
 * Client metadata (RFC 7591 §2), shared by dynamic registration and Client ID Metadata Documents.
 * Unknown members are ignored (RFC 7591 §2: "the authorization server MUST ignore any client
 * metadata sent by the client that it does not understand").
 */
export const clientMetadataSchema = z
  .object({
    redirect_uris: z
      .array(z.string())
      .min(1, 'at least one redirect URI is required')
      .max(MAX_REDIRECT_URIS, `at most ${MAX_REDIRECT_URIS} redirect URIs`),
    token_endpoint_auth_method: z.enum(['none', 'client_secret_basic', 'client_secret_post']).optional(),
    grant_types: z
      .array(z.string())
      .default(['authorization_code'])
      .refine(
        (v) => v.every((g) => g === 'authorization_code' || g === 'refresh_token'),
        'only authorization_code and refresh_token are supported',
      )
      .refine((v) => v.includes('authorization_code'), 'must include authorization_code'),
    response_types: z
      .array(z.string())
      .default(['code'])
      .refine((v) => v.every((r) => r === 'code'), 'only code is supported'),
    client_name: z.string().trim().min(1).max(200).optional(),
    client_uri: cosmeticUrl.optional(),
    logo_uri: cosmeticUrl.optional(),
    scope: z.string().max(1000).optional(),
    contacts: z.array(z.string().max(320)).max(10).optional(),
    tos_uri: cosmeticUrl.optional(),
    policy_uri: cosmeticUrl.optional(),
    software_id: z.string().max(200).optional(),
    software_version: z.string().max(100).optional(),
    application_type: z.enum(['web', 'native']).optional(),
  })
  .superRefine((value, ctx) => {
    value.redirect_uris.forEach((uri, index) => {
      const check = checkRedirectUri(uri);
      if (!check.ok) {
        ctx.addIssue({
          code: 'custom',
          path: ['redirect_uris', index],
          message: `redirect URI ${JSON.stringify(uri.slice(0, 200))} ${check.reason}`,
        });
      }
    });
  });

export type ClientMetadataInput = z.input<typeof clientMetadataSchema>;
export type ClientMetadata = z.output<typeof clientMetadataSchema>;

/** The first problem, phrased for an error_description. */
export function describeMetadataError(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'the client metadata is invalid';
  const first = issue.path[0];
  if (first === 'redirect_uris' && issue.path.length > 1) return issue.message;
  return `${issue.path.join('.') || 'metadata'}: ${issue.message}`;
}

export function applicationTypeOf(metadata: ClientMetadata): 'web' | 'native' {
  return metadata.application_type ?? inferApplicationType(metadata.redirect_uris);
}
