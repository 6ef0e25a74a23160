import { hash } from 'node:crypto';

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

/**
 * How access tokens are named in revocation events and cache keys: SHA-256, base64url.
 * The authorization server stores the same hash, so both sides agree without sharing tokens.
 */
export function accessTokenKey(token: string): string {
  // The one-shot hash (crypto.hash): one call instead of a Hash object's three, on every bearer request.
  return hash('sha256', token, 'base64url');
}

/** Channel on which the clients CLI announces a registered client it changed. */
export const CLIENT_CHANGED_CHANNEL = 'oauth:client-changed';

/**
 * Published when a registered client's row changes after registration (its secret rotated, it
 * was disabled, enabled again or deleted): every authorization server drops what it holds of
 * that client in memory and reads it again.
 */
export interface ClientChangedEvent {
  clientId: string;
  change: 'secret_rotated' | 'disabled' | 'enabled' | 'deleted';
  at: number;
}
