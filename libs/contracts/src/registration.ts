/** RFC 7591 §2 client metadata accepted by POST /api/oauth/register. */
export interface ClientRegistrationRequest {
  client_name?: string;
  application_type?: 'native';
  redirect_uris: string[];
  /** Registration issues a secret or nothing; private_key_jwt clients come by CIMD or from staff. */
  token_endpoint_auth_method?: Exclude<TokenEndpointAuthMethod, 'private_key_jwt'>;
  grant_types?: GrantType[];
  response_types?: 'code'[];
  scope?: string;
  /** RFC 9449 §5.2: every access token of this client is DPoP-bound (a proof is mandatory). Default false. */
  dpop_bound_access_tokens?: boolean;
}

/**
 * How a client authenticates at the token, revocation and introspection endpoints (RFC 7591 §2):
 * not at all (a public client), with a secret, or with a JWT signed by its private key
 * (private_key_jwt, RFC 7523 §2.2; metadata-document clients and staff integrations).
 */
export type TokenEndpointAuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt';
export type GrantType = 'authorization_code' | 'refresh_token';

/** RFC 7591 §3.2.1 client information response. */
export interface ClientRegistrationResponse {
  client_id: string;
  client_id_issued_at: number;
  client_secret?: string;
  /** 0: the secret does not expire (RFC 7591 §3.2.1). */
  client_secret_expires_at?: 0;
  client_name?: string;
  application_type: 'native';
  redirect_uris: string[];
  token_endpoint_auth_method: TokenEndpointAuthMethod;
  grant_types: GrantType[];
  response_types: 'code'[];
  /** The default scope of authorization requests without one; absent when none was registered. */
  scope?: string;
  /** RFC 9449 §5.2: whether a DPoP proof is mandatory at the token endpoint for this client. */
  dpop_bound_access_tokens?: boolean;
}
