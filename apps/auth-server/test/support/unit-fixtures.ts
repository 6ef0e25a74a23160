/**
 * The shared pieces of the auth server's table-driven unit specs (fosite style): clients and the
 * directory double that holds them, HTTP Basic credentials, token rows and the recording doubles
 * of the storage below TokenLookup, TokenIssuer and GrantRevoker, and the one way an expected
 * OAuth error is checked. Each spec keeps its own table and the doubles only it needs.
 */
import type { TokenResponse } from '@platform/contracts';
import type { OAuthError } from '@platform/oauth-errors';
import { ClientAuthenticator } from '../../src/client-auth/client-authenticator';
import type { ClientDirectory, DirectoryClient } from '../../src/client-metadata-documents';
import type { RegisteredClient } from '../../src/clients/clients.repository';
import type { AuthConfig } from '../../src/config/auth-config';
import { hashToken } from '../../src/crypto/tokens';
import type { SigningKeysService } from '../../src/keys/signing-keys.service';
import type { GrantRevoker } from '../../src/token/grant-revoker';
import { TokenIssuer } from '../../src/token/token-issuer';
import { TokenLookup } from '../../src/token/token-lookup';
import type { ActiveAccessTokenRow, RefreshTokenRow } from '../../src/token/token-rows';
import type { TokenStore } from '../../src/token/token-store';

export const ISSUER = 'https://platform.example';
export const HOUR = 3600_000;
/** RFC 6749 §5.2: the challenge a client that tried HTTP Basic gets with its 401. */
export const BASIC_CHALLENGE = 'Basic realm="oauth", charset="UTF-8"';

// --- Clients -------------------------------------------------------------------------------

/** A registered client: public (no secret) and native unless overridden. */
export function registeredClient(overrides: Partial<RegisteredClient> = {}): RegisteredClient {
  return {
    id: 'public-app',
    secretHash: null,
    name: null,
    applicationType: 'native',
    redirectUris: ['http://127.0.0.1/cb'],
    tokenEndpointAuthMethod: 'none',
    grantTypes: ['authorization_code', 'refresh_token'],
    responseTypes: ['code'],
    scope: 'courses:read',
    dpopBoundAccessTokens: false,
    createdAt: new Date(0),
    ...overrides,
  };
}

/** A client as ClientDirectory hands it out: registered dynamically unless overridden. */
export function directoryClient(overrides: Partial<DirectoryClient> = {}): DirectoryClient {
  return { ...registeredClient(), kind: 'dynamic', scopeCeiling: null, host: null, loopbackOnly: false, ...overrides };
}

/** A confidential web client whose secret's hash is stored (client_secret_basic unless overridden). */
export function confidentialClient(id: string, secret: string, overrides: Partial<DirectoryClient> = {}): DirectoryClient {
  return directoryClient({
    id,
    secretHash: hashToken(secret),
    applicationType: 'web',
    redirectUris: ['https://app.example/cb'],
    tokenEndpointAuthMethod: 'client_secret_basic',
    ...overrides,
  });
}

/**
 * An in-memory ClientDirectory (findClient only) over the given clients. `onFind` sees each
 * lookup first: to record it, or to throw what the real directory would (a refused document).
 */
export function clientDirectoryDouble(clients: readonly DirectoryClient[], onFind?: (clientId: string) => void): ClientDirectory {
  const directory: Pick<ClientDirectory, 'findClient'> = {
    async findClient(clientId) {
      onFind?.(clientId);
      return clients.find((client) => client.id === clientId) ?? null;
    },
  };
  return directory as ClientDirectory;
}

/** The real ClientAuthenticator over clientDirectoryDouble. */
export function authenticatorOver(clients: readonly DirectoryClient[], onFind?: (clientId: string) => void): ClientAuthenticator {
  return new ClientAuthenticator(clientDirectoryDouble(clients, onFind));
}

/** HTTP Basic credentials as RFC 6749 §2.3.1 has clients send them: each part form-urlencoded first. */
export function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

// --- Tokens --------------------------------------------------------------------------------

const NOW = Date.now();
/** When the rows of accessTokenRow / refreshTokenRow were issued and expire (a minute ago, in an hour). */
export const TOKEN_TIMES = { issuedAt: new Date(NOW - 60_000), expiresAt: new Date(NOW + HOUR) } as const;
/** The grant every token row belongs to (its id is grant-<clientId>). */
export const TOKEN_GRANT = { userId: 'user-1', schoolId: 'school-1', resource: ISSUER } as const;

/** A live access token row of `clientId` for the raw token `raw` (id `id-<raw>`). */
export function accessTokenRow(raw: string, clientId: string): ActiveAccessTokenRow {
  return {
    id: `id-${raw}`,
    tokenHash: hashToken(raw),
    grantId: `grant-${clientId}`,
    clientId,
    scope: 'courses:read',
    issuedAt: TOKEN_TIMES.issuedAt,
    expiresAt: TOKEN_TIMES.expiresAt,
    dpopJkt: null,
    grant: { ...TOKEN_GRANT },
  };
}

/** A current refresh token row of `clientId` for the raw token `raw` (id `id-<raw>`). */
export function refreshTokenRow(raw: string, clientId: string, overrides: Partial<RefreshTokenRow> = {}): RefreshTokenRow {
  return { ...accessTokenRow(raw, clientId), rotatedAt: null, revokedAt: null, grant: { ...TOKEN_GRANT, revokedAt: null }, ...overrides };
}

/**
 * The real TokenLookup over an in-memory double of the store below it: findActiveAccessToken
 * (the live access tokens given) and findRefreshToken (any state), recording 'access' /
 * 'refresh' in `calls`.
 */
export function tokenLookupOver(access: readonly ActiveAccessTokenRow[], refresh: readonly RefreshTokenRow[], calls: string[]): TokenLookup {
  const store: Pick<TokenStore, 'findActiveAccessToken' | 'findRefreshToken'> = {
    async findActiveAccessToken(tokenHash) {
      calls.push('access');
      return access.find((token) => token.tokenHash === tokenHash) ?? null;
    },
    async findRefreshToken(tokenHash) {
      calls.push('refresh');
      return refresh.find((token) => token.tokenHash === tokenHash) ?? null;
    },
  };
  return new TokenLookup(store as TokenStore);
}

// --- Grants --------------------------------------------------------------------------------

/** What the grants and TokenIssuer read of the configuration. */
export function grantConfig(refreshReuseGraceSeconds = 30): AuthConfig {
  return {
    issuer: ISSUER,
    apiResource: ISSUER,
    ttl: { accessToken: 900, refreshToken: 86_400, authorizationCode: 60, session: 3600, refreshReuseGrace: refreshReuseGraceSeconds },
  } satisfies Pick<AuthConfig, 'issuer' | 'apiResource' | 'ttl'> as AuthConfig;
}

/** The real TokenIssuer (pure) over a double of the key service (signs 'signed-id-token'). */
export function tokenIssuerOver(config: AuthConfig): TokenIssuer {
  const keys: Pick<SigningKeysService, 'sign'> = { sign: async () => 'signed-id-token' };
  return new TokenIssuer(config, keys as SigningKeysService);
}

/** A GrantRevoker that records `revokeGrant <grantId> <reason>` and `revokeAccessToken <id>`. */
export function recordingRevoker(calls: string[]): GrantRevoker {
  const revoker: Pick<GrantRevoker, 'revokeGrant' | 'revokeAccessToken'> = {
    async revokeGrant(grantId, reason) {
      calls.push(`revokeGrant ${grantId} ${reason}`);
    },
    async revokeAccessToken(token) {
      calls.push(`revokeAccessToken ${token.id}`);
    },
  };
  return revoker as GrantRevoker;
}

/** Our opaque tokens: base64url, at least 20 characters. */
export const OPAQUE_TOKEN = /^[A-Za-z0-9_-]{20,}$/;

/** A token response (RFC 6749 §5.1) with our access token lifetime and the given scope. */
export function expectTokenResponse(response: TokenResponse, scope: string): void {
  expect(response).toMatchObject({ token_type: 'Bearer', expires_in: 900, scope });
  expect(response.access_token).toMatch(OPAQUE_TOKEN);
}

// --- Errors --------------------------------------------------------------------------------

export type OAuthErrorClass = new (...args: never[]) => OAuthError;

/** A table's expected error: class, code, description, and optionally the logged detail and the Basic challenge. */
export interface ExpectedOAuthError {
  error: OAuthErrorClass;
  code: string;
  description: string;
  /** The internal detail (logged, never sent), when the case pins it. */
  detail?: string;
  /** Whether WWW-Authenticate carries the Basic challenge (false: no header), when the case pins it. */
  basicChallenge?: boolean;
}

/** The outcome rejects with exactly the expected OAuth error. */
export async function expectOAuthError(outcome: Promise<unknown>, expected: ExpectedOAuthError): Promise<void> {
  const error = await outcome.then(
    (value: unknown) => {
      throw new Error(`expected an OAuth error, got ${JSON.stringify(value)}`);
    },
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(expected.error);
  expect(error).toMatchObject({ error: expected.code, description: expected.description });
  if (expected.detail) expect((error as OAuthError).internalDetail).toBe(expected.detail);
  if (expected.basicChallenge !== undefined) {
    expect((error as OAuthError).headers['www-authenticate']).toBe(expected.basicChallenge ? BASIC_CHALLENGE : undefined);
  }
}
