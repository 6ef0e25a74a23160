import type { ClientRegistrationRequest, TokenEndpointAuthMethod } from '@platform/contracts';
import { InvalidClientMetadataError, InvalidRedirectUriError } from '@platform/oauth-errors';
import { formatScopes, parseScopeString, unknownScopes } from '@platform/scopes';
import { z } from 'zod';
import { REDIRECT_URI_PROBLEMS, checkRedirectUri } from '../clients/redirect-uri';
import { SUPPORTED_GRANT_TYPES } from '../common/supported-grant-types';

export const MAX_REDIRECT_URIS = 10;
const MAX_URI_LENGTH = 2000;

/** No control or format characters (bidi overrides, zero-width): the name is shown on the consent page. */
const printable = (value: string) => !/[\p{Cc}\p{Cf}]/u.test(value);

const MetadataSchema = z.object({
  client_name: z.string().trim().min(1).max(200).refine(printable, 'must not contain control or format characters').optional(),
  application_type: z.literal('native').default('native'),
  token_endpoint_auth_method: z.enum(['none', 'client_secret_post', 'client_secret_basic']).default('none'),
  grant_types: z
    .array(z.enum(SUPPORTED_GRANT_TYPES))
    .min(1)
    .max(SUPPORTED_GRANT_TYPES.length)
    .default([...SUPPORTED_GRANT_TYPES])
    .refine((grants) => grants.includes('authorization_code'), 'must include authorization_code'),
  response_types: z.array(z.literal('code')).min(1).max(1).default(['code']),
  scope: z.string().max(2000).optional(),
  // RFC 9449 §5.2: "If omitted, the default value is false."
  dpop_bound_access_tokens: z.boolean().default(false),
});

export interface ValidatedClientMetadata {
  clientName?: string;
  applicationType: 'native';
  redirectUris: string[];
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  grantTypes: ('authorization_code' | 'refresh_token')[];
  responseTypes: 'code'[];
  /**
   * The default scope of authorization requests that omit one (clients/scope-policy.ts); ''
   * when none was registered (requests without scope then get the least-privilege default).
   */
  scope: string;
  /** RFC 9449 §5.2: the authorization server "MUST reject token requests from the client that do not contain the DPoP header". */
  dpopBoundAccessTokens: boolean;
}

/**
 * RFC 7591 §2 client metadata, validated. Redirect URI problems are invalid_redirect_uri,
 * everything else invalid_client_metadata (§3.2.2). Unknown members are ignored (§2: "the
 * authorization server MUST ignore any client metadata sent by the client that it does not
 * understand").
 */
export function validateClientMetadata(body: unknown): ValidatedClientMetadata {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidClientMetadataError('The request body must be a JSON object of client metadata');
  }
  const raw = body as Partial<ClientRegistrationRequest> & Record<string, unknown>;
  const redirectUris = validateRedirectUris(raw.redirect_uris);

  const parsed = MetadataSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || 'metadata';
    throw new InvalidClientMetadataError(`${field}: ${issue?.message ?? 'invalid value'}`);
  }
  const metadata = parsed.data;
  // RFC 7591 §2: "If omitted, an authorization server MAY register a client with a default
  // set of scopes." None is registered: requests without scope get the least-privilege default.
  const scopes = metadata.scope === undefined ? [] : parseScopeString(metadata.scope);
  const unknown = unknownScopes(scopes);
  if (unknown.length > 0) {
    throw new InvalidClientMetadataError(`scope: unknown scope ${unknown.slice(0, 3).join(', ')}`);
  }
  if (metadata.scope !== undefined && scopes.length === 0) throw new InvalidClientMetadataError('scope: must name at least one scope');

  return {
    clientName: metadata.client_name,
    applicationType: metadata.application_type,
    redirectUris,
    tokenEndpointAuthMethod: metadata.token_endpoint_auth_method,
    grantTypes: metadata.grant_types,
    responseTypes: metadata.response_types,
    scope: formatScopes(scopes),
    dpopBoundAccessTokens: metadata.dpop_bound_access_tokens,
  };
}

function validateRedirectUris(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new InvalidRedirectUriError('redirect_uris: at least one loopback redirect URI is required');
  }
  if (value.length > MAX_REDIRECT_URIS) {
    throw new InvalidRedirectUriError(`redirect_uris: at most ${MAX_REDIRECT_URIS} redirect URIs`);
  }
  return [
    ...new Set(
      value.map((uri, index) => {
        if (typeof uri !== 'string' || uri.length === 0 || uri.length > MAX_URI_LENGTH) {
          throw new InvalidRedirectUriError(`redirect_uris[${index}]: must be a URI of at most ${MAX_URI_LENGTH} characters`);
        }
        const problem = checkRedirectUri(uri);
        if (problem) throw new InvalidRedirectUriError(`redirect_uris[${index}] ${REDIRECT_URI_PROBLEMS[problem]}`);
        return uri;
      }),
    ),
  ];
}
