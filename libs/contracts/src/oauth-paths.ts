/**
 * The authorization server's paths, relative to its issuer: the one list its routes are
 * declared from, its RFC 8414 metadata is built from, and the resource server's documents,
 * OpenAPI document and introspection client point at. Clients still learn the endpoints from
 * the metadata at `authorizationServerMetadata` (RFC 8414 §3).
 */
export const OAUTH_PATHS = {
  authorization: '/oauth/authorize',
  token: '/api/oauth/token',
  registration: '/api/oauth/register',
  introspection: '/api/oauth/introspect',
  revocation: '/api/oauth/revoke',
  userinfo: '/api/oauth/userinfo',
  jwks: '/.well-known/jwks.json',
  /** RFC 8414 §3: `/.well-known/oauth-authorization-server` under the issuer. */
  authorizationServerMetadata: '/.well-known/oauth-authorization-server',
  /** OpenID Connect Discovery 1.0 §4. */
  openIdConfiguration: '/.well-known/openid-configuration',
  /** The authorization server's `service_documentation` (RFC 8414 §2). */
  serviceDocumentation: '/auth.md',
} as const;
