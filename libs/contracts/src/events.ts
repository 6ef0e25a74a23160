/** Channel on which the authorization server publishes revocations. */
export const TOKEN_REVOKED_CHANNEL = 'oauth:token-revoked';

/**
 * Published whenever access tokens stop being valid before their expiry. Carries the
 * SHA-256 hashes (base64url) of the access tokens, never the tokens themselves: the
 * same hashes the resource servers key their introspection caches by.
 */
export interface TokenRevokedEvent {
  accessTokenHashes: string[];
  reason: 'revocation' | 'refresh_token_reuse' | 'code_replay';
  at: number;
}
