/** The exact error bodies the authorization server answers with, in one catalogue. */
export const EXPECTED_ERRORS = {
  httpsRedirectUri: {
    status: 400,
    body: {
      error: 'invalid_redirect_uri',
      error_description:
        'redirect_uris[0] must use http on a loopback address (RFC 8252 section 7.3); https and custom schemes are not accepted',
    },
  },
  missingPkce: { error: 'invalid_request', error_description: 'code_challenge is required (PKCE with S256)' },
  plainPkce: { error: 'invalid_request', error_description: 'code_challenge_method=plain is not allowed; use S256' },
  unknownScope: { error: 'invalid_scope' },
  deny: { error: 'access_denied' },
  wrongVerifier: {
    status: 400,
    body: { error: 'invalid_grant', error_description: 'PKCE verification failed: code_verifier does not match the code_challenge' },
  },
  usedCode: {
    status: 400,
    body: { error: 'invalid_grant', error_description: 'The authorization code is invalid, expired or already used' },
  },
  usedRefreshToken: {
    status: 400,
    body: { error: 'invalid_grant', error_description: 'The refresh token is invalid, expired or revoked' },
  },
  wrongSecret: { status: 401, body: { error: 'invalid_client', error_description: 'Client authentication failed' } },
  unsupportedGrant: {
    status: 400,
    body: { error: 'unsupported_grant_type', error_description: 'Unsupported grant_type; supported: authorization_code, refresh_token' },
  },
} as const;
