/** RFC 8414 §2 authorization server metadata, as served by this platform. */
export interface AuthorizationServerMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  registration_endpoint: string;
  introspection_endpoint: string;
  revocation_endpoint: string;
  userinfo_endpoint: string;
  jwks_uri: string;
  scopes_supported: string[];
  response_types_supported: ['code'];
  response_modes_supported: ['query'];
  grant_types_supported: string[];
  code_challenge_methods_supported: ['S256'];
  token_endpoint_auth_methods_supported: string[];
  /** RFC 8414 §2: the JWS algorithms accepted for private_key_jwt assertions. */
  token_endpoint_auth_signing_alg_values_supported: string[];
  revocation_endpoint_auth_methods_supported: string[];
  revocation_endpoint_auth_signing_alg_values_supported: string[];
  introspection_endpoint_auth_methods_supported: string[];
  introspection_endpoint_auth_signing_alg_values_supported: string[];
  authorization_response_iss_parameter_supported: true;
  /** draft-ietf-oauth-client-id-metadata-document: URL client_ids are resolved from their metadata document. */
  client_id_metadata_document_supported: boolean;
  /** RFC 9449 §5.1: the JWS algorithms accepted in DPoP proofs (asymmetric only). */
  dpop_signing_alg_values_supported: string[];
  service_documentation: string;
}

export interface OpenIdProviderMetadata extends AuthorizationServerMetadata {
  id_token_signing_alg_values_supported: ['RS256'];
  subject_types_supported: ['public'];
  request_uri_parameter_supported: false;
  claims_supported: string[];
}
