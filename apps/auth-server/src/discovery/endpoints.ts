/** The fixed paths of the authorization server, relative to the issuer. */
export const OAUTH_PATHS = {
  authorization: '/oauth/authorize',
  token: '/api/oauth/token',
  registration: '/api/oauth/register',
  introspection: '/api/oauth/introspect',
  revocation: '/api/oauth/revoke',
  userinfo: '/api/oauth/userinfo',
  jwks: '/.well-known/jwks.json',
  serviceDocumentation: '/auth.md',
} as const;
