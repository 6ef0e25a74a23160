import { Inject, Injectable } from '@nestjs/common';
import { type AuthorizationServerMetadata, OAUTH_PATHS, type OpenIdProviderMetadata } from '@platform/contracts';
import { DPOP_SIGNING_ALGORITHMS } from '@platform/dpop';
import { AUTHORIZATION_SERVER_SCOPES } from '@platform/scopes';
import { CLIENT_ASSERTION_ALGORITHMS } from '../clients/client-assertion-rules';
import { AUTH_CONFIG, type AuthConfig } from '../config/auth-config';
import { SUPPORTED_GRANT_TYPES } from '../common/supported-grant-types';

/** Every way a client authenticates at the token and revocation endpoints (client-auth/client-authenticator.ts). */
export const TOKEN_ENDPOINT_AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'];
/** Introspection answers confidential clients only (introspection.service.ts). */
export const INTROSPECTION_ENDPOINT_AUTH_METHODS = ['client_secret_post', 'client_secret_basic', 'private_key_jwt'];

/**
 * RFC 8414 metadata: the source of truth for what this server supports. The OpenID
 * Connect discovery document is the same object plus the OIDC-only members.
 */
@Injectable()
export class DiscoveryService {
  private readonly oauthMetadata: AuthorizationServerMetadata;
  private readonly openIdMetadata: OpenIdProviderMetadata;

  constructor(@Inject(AUTH_CONFIG) config: AuthConfig) {
    const at = (path: string) => `${config.issuer}${path}`;
    this.oauthMetadata = {
      issuer: config.issuer,
      authorization_endpoint: at(OAUTH_PATHS.authorization),
      token_endpoint: at(OAUTH_PATHS.token),
      registration_endpoint: at(OAUTH_PATHS.registration),
      introspection_endpoint: at(OAUTH_PATHS.introspection),
      revocation_endpoint: at(OAUTH_PATHS.revocation),
      userinfo_endpoint: at(OAUTH_PATHS.userinfo),
      jwks_uri: at(OAUTH_PATHS.jwks),
      // The catalogue plus offline_access (OpenID Connect Core §11), which no resource lists.
      scopes_supported: [...AUTHORIZATION_SERVER_SCOPES],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: [...SUPPORTED_GRANT_TYPES],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: TOKEN_ENDPOINT_AUTH_METHODS,
      // RFC 8414 §2: the algorithms of private_key_jwt assertions, exactly those the verifier accepts.
      token_endpoint_auth_signing_alg_values_supported: [...CLIENT_ASSERTION_ALGORITHMS],
      revocation_endpoint_auth_methods_supported: TOKEN_ENDPOINT_AUTH_METHODS,
      revocation_endpoint_auth_signing_alg_values_supported: [...CLIENT_ASSERTION_ALGORITHMS],
      introspection_endpoint_auth_methods_supported: INTROSPECTION_ENDPOINT_AUTH_METHODS,
      introspection_endpoint_auth_signing_alg_values_supported: [...CLIENT_ASSERTION_ALGORITHMS],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: config.cimd.enabled,
      // RFC 9449 §5.1: the JWS algorithms accepted in DPoP proofs, asymmetric only (@platform/dpop).
      dpop_signing_alg_values_supported: [...DPOP_SIGNING_ALGORITHMS],
      service_documentation: at(OAUTH_PATHS.serviceDocumentation),
    };
    this.openIdMetadata = {
      ...this.oauthMetadata,
      id_token_signing_alg_values_supported: ['RS256'],
      subject_types_supported: ['public'],
      // OpenID Connect Discovery §3: "If omitted, the default value is true": request_uri is not supported.
      request_uri_parameter_supported: false,
      claims_supported: [
        'sub', 'iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce',
        'name', 'email', 'email_verified', 'school_id', 'role',
      ],
    };
  }

  authorizationServerMetadata(): AuthorizationServerMetadata {
    return this.oauthMetadata;
  }

  openIdConfiguration(): OpenIdProviderMetadata {
    return this.openIdMetadata;
  }
}
