import { InvalidClientError, InvalidRequestError, type OAuthError } from '@platform/oauth-errors';
import type { IntrospectionResponse } from '@platform/contracts';
import { ClientAuthenticator } from '../client-auth/client-authenticator';
import type { ClientDirectory, DirectoryClient } from '../client-metadata-documents';
import type { AuthConfig } from '../config/auth-config';
import { hashToken } from '../crypto/tokens';
import type { ActiveAccessTokens } from '../token/active-access-tokens';
import { TokenLookup } from '../token/token-lookup';
import type { ActiveAccessTokenRow, RefreshTokenRow, TokenQueries } from '../token/token-queries';
import type { TokensRepository } from '../token/tokens.repository';
import { IntrospectionService } from './introspection.service';

/**
 * Table-driven unit spec of RFC 7662 introspection. Each case names the caller (the resource
 * server's credentials or a client's), the token and hint, and the exact answer plus the token
 * lookups made, in order. The real ClientAuthenticator and TokenLookup run over in-memory
 * doubles of what lies below them: ClientDirectory.findClient, ActiveAccessTokens.findByHash
 * (live access tokens only, as the real one) and TokenQueries.findRefreshTokenByHash (any state).
 */

const ISSUER = 'https://platform.example';
const RS = { id: 'resource-server', secret: 'resource-server-secret' };
const config = { issuer: ISSUER, introspectionClient: RS } satisfies Pick<AuthConfig, 'issuer' | 'introspectionClient'> as AuthConfig;
const SECRET = 'client-secret-value';
const HOUR = 3600_000;
const NOW = Date.now();
const ISSUED_AT = new Date(NOW - 60_000);
const EXPIRES_AT = new Date(NOW + HOUR);

function directoryClient(id: string, overrides: Partial<DirectoryClient> = {}): DirectoryClient {
  return {
    id,
    secretHash: hashToken(SECRET),
    name: null,
    applicationType: 'web',
    redirectUris: ['https://app.example/cb'],
    tokenEndpointAuthMethod: 'client_secret_basic',
    grantTypes: ['authorization_code', 'refresh_token'],
    responseTypes: ['code'],
    scope: 'courses:read',
    createdAt: new Date(0),
    kind: 'dynamic',
    scopeCeiling: null,
    host: null,
    loopbackOnly: false,
    ...overrides,
  };
}
const CLIENTS = [
  directoryClient('client-a'),
  directoryClient('client-b'),
  directoryClient('public-app', { tokenEndpointAuthMethod: 'none', secretHash: null }),
];

// Raw tokens shaped like ours (TokenLookup refuses anything else without a lookup).
const ACCESS_A = 'access-token-of-client-a-000001';
const ACCESS_B = 'access-token-of-client-b-000001';
const REFRESH_A = 'refresh-token-of-client-a-00001';
const REFRESH_B = 'refresh-token-of-client-b-00001';
const ROTATED_A = 'refresh-token-rotated-client-a-1';

const grant = { userId: 'user-1', schoolId: 'school-1', resource: ISSUER };
const accessRow = (raw: string, clientId: string): ActiveAccessTokenRow => ({
  id: `id-${raw}`,
  tokenHash: hashToken(raw),
  grantId: `grant-${clientId}`,
  clientId,
  scope: 'courses:read',
  issuedAt: ISSUED_AT,
  expiresAt: EXPIRES_AT,
  grant,
});
const refreshRow = (raw: string, clientId: string, overrides: Partial<RefreshTokenRow> = {}): RefreshTokenRow => ({
  id: `id-${raw}`,
  tokenHash: hashToken(raw),
  grantId: `grant-${clientId}`,
  clientId,
  scope: 'courses:read courses:write',
  issuedAt: ISSUED_AT,
  expiresAt: EXPIRES_AT,
  rotatedAt: null,
  revokedAt: null,
  grant: { ...grant, revokedAt: null },
  ...overrides,
});

const ACCESS = [accessRow(ACCESS_A, 'client-a'), accessRow(ACCESS_B, 'client-b')];
const REFRESH = [refreshRow(REFRESH_A, 'client-a'), refreshRow(REFRESH_B, 'client-b'), refreshRow(ROTATED_A, 'client-a', { rotatedAt: new Date(NOW - 1000) })];

function setup() {
  const lookups: string[] = [];
  const directory: Pick<ClientDirectory, 'findClient'> = {
    async findClient(clientId) {
      return CLIENTS.find((client) => client.id === clientId) ?? null;
    },
  };
  const activeAccessTokens: Pick<ActiveAccessTokens, 'findByHash'> = {
    async findByHash(tokenHash) {
      lookups.push('access');
      return ACCESS.find((token) => token.tokenHash === tokenHash) ?? null;
    },
  };
  const queries: Pick<TokenQueries, 'findRefreshTokenByHash'> = {
    async findRefreshTokenByHash(tokenHash) {
      lookups.push('refresh');
      return REFRESH.find((token) => token.tokenHash === tokenHash) ?? null;
    },
  };
  // findActive and findActiveAccessTokenState never use TokensRepository.
  const unusedRepository: Pick<TokensRepository, never> = {};
  const lookup = new TokenLookup(unusedRepository as TokensRepository, queries as TokenQueries, activeAccessTokens as ActiveAccessTokens);
  const service = new IntrospectionService(config, new ClientAuthenticator(directory as ClientDirectory), lookup);
  return { service, lookups };
}

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const asResourceServer = basic(RS.id, RS.secret);
const asClientA = basic('client-a', SECRET);

const active = (kind: 'Bearer' | 'refresh_token', clientId: string, scope: string): IntrospectionResponse => ({
  active: true,
  scope,
  client_id: clientId,
  sub: 'user-1',
  aud: ISSUER,
  iss: ISSUER,
  exp: Math.floor(EXPIRES_AT.getTime() / 1000),
  iat: Math.floor(ISSUED_AT.getTime() / 1000),
  token_type: kind,
  school_id: 'school-1',
});
const INACTIVE: IntrospectionResponse = { active: false };

type ErrorClass = new (...args: never[]) => OAuthError;

interface Case {
  name: string;
  request: { body: Record<string, string>; authorization?: string };
  expected:
    | { response: IntrospectionResponse; lookups: string[] }
    | { error: ErrorClass; code: string; description: string; detail?: string; basicChallenge?: boolean; lookups: string[] };
}

const cases: Case[] = [
  {
    name: 'the resource server learns about any live access token',
    request: { body: { token: ACCESS_B }, authorization: asResourceServer },
    expected: { response: active('Bearer', 'client-b', 'courses:read'), lookups: ['access'] },
  },
  {
    name: 'the resource server may send its secret in the body',
    request: { body: { token: ACCESS_A, client_id: RS.id, client_secret: RS.secret } },
    expected: { response: active('Bearer', 'client-a', 'courses:read'), lookups: ['access'] },
  },
  {
    name: 'a refresh token is never active for the resource server (it must never pass as a bearer token)',
    request: { body: { token: REFRESH_A }, authorization: asResourceServer },
    expected: { response: INACTIVE, lookups: ['access'] },
  },
  {
    name: 'not even with token_type_hint=refresh_token',
    request: { body: { token: REFRESH_A, token_type_hint: 'refresh_token' }, authorization: asResourceServer },
    expected: { response: INACTIVE, lookups: ['access'] },
  },
  {
    name: 'an unknown token → active:false (§2.2), not an error',
    request: { body: { token: 'unknown-token-abcdefghijklmn' }, authorization: asResourceServer },
    expected: { response: INACTIVE, lookups: ['access'] },
  },
  {
    name: 'a value that cannot be one of our tokens → active:false without a lookup',
    request: { body: { token: 'not a token!' }, authorization: asResourceServer },
    expected: { response: INACTIVE, lookups: [] },
  },
  {
    name: 'the resource server id with a wrong secret in Basic → invalid_client with the Basic challenge (RFC 6749 §5.2)',
    request: { body: { token: ACCESS_A }, authorization: basic(RS.id, 'wrong') },
    expected: { error: InvalidClientError, code: 'invalid_client', description: 'Client authentication failed', detail: 'wrong resource server secret', basicChallenge: true, lookups: [] },
  },
  {
    name: 'the resource server id with a wrong secret in the body → invalid_client, no challenge',
    request: { body: { token: ACCESS_A, client_id: RS.id, client_secret: 'wrong' } },
    expected: { error: InvalidClientError, code: 'invalid_client', description: 'Client authentication failed', detail: 'wrong resource server secret', basicChallenge: false, lookups: [] },
  },
  {
    name: 'the resource server id without a secret → invalid_client',
    request: { body: { token: ACCESS_A, client_id: RS.id } },
    expected: { error: InvalidClientError, code: 'invalid_client', description: 'Client authentication failed', detail: 'wrong resource server secret', lookups: [] },
  },
  {
    name: 'a confidential client learns about its own access token',
    request: { body: { token: ACCESS_A }, authorization: asClientA },
    expected: { response: active('Bearer', 'client-a', 'courses:read'), lookups: ['access'] },
  },
  {
    name: 'a confidential client learns about its own refresh token (token_type refresh_token), access searched first',
    request: { body: { token: REFRESH_A }, authorization: asClientA },
    expected: { response: active('refresh_token', 'client-a', 'courses:read courses:write'), lookups: ['access', 'refresh'] },
  },
  {
    name: 'token_type_hint=refresh_token is searched first (§2.1)',
    request: { body: { token: REFRESH_A, token_type_hint: 'refresh_token' }, authorization: asClientA },
    expected: { response: active('refresh_token', 'client-a', 'courses:read courses:write'), lookups: ['refresh'] },
  },
  {
    name: 'a wrong hint still finds the token: the search extends to every type (§2.1)',
    request: { body: { token: ACCESS_A, token_type_hint: 'refresh_token' }, authorization: asClientA },
    expected: { response: active('Bearer', 'client-a', 'courses:read'), lookups: ['refresh', 'access'] },
  },
  {
    name: 'an unknown hint is ignored',
    request: { body: { token: REFRESH_A, token_type_hint: 'id_token' }, authorization: asClientA },
    expected: { response: active('refresh_token', 'client-a', 'courses:read courses:write'), lookups: ['access', 'refresh'] },
  },
  {
    name: "another client's access token → active:false",
    request: { body: { token: ACCESS_B }, authorization: asClientA },
    expected: { response: INACTIVE, lookups: ['access'] },
  },
  {
    name: "another client's refresh token → active:false",
    request: { body: { token: REFRESH_B }, authorization: asClientA },
    expected: { response: INACTIVE, lookups: ['access', 'refresh'] },
  },
  {
    name: 'a rotated refresh token → active:false',
    request: { body: { token: ROTATED_A }, authorization: asClientA },
    expected: { response: INACTIVE, lookups: ['access', 'refresh'] },
  },
  {
    name: 'a confidential client with a wrong secret → invalid_client, no lookup',
    request: { body: { token: ACCESS_A }, authorization: basic('client-a', 'wrong') },
    expected: {
      error: InvalidClientError,
      code: 'invalid_client',
      description: 'Client authentication failed',
      detail: 'wrong or missing client_secret',
      basicChallenge: true,
      lookups: [],
    },
  },
  {
    name: 'a public client is refused (§2.1: the endpoint MUST require authorization)',
    request: { body: { token: ACCESS_A, client_id: 'public-app' } },
    expected: {
      error: InvalidClientError,
      code: 'invalid_client',
      description: 'Introspection needs a confidential client',
      detail: 'public client at introspection',
      basicChallenge: false,
      lookups: [],
    },
  },
  {
    name: 'an unknown client → invalid_client',
    request: { body: { token: ACCESS_A }, authorization: basic('nobody', SECRET) },
    expected: { error: InvalidClientError, code: 'invalid_client', description: 'Client authentication failed', detail: 'unknown client_id', lookups: [] },
  },
  {
    name: 'no credentials at all → invalid_client',
    request: { body: { token: ACCESS_A } },
    expected: { error: InvalidClientError, code: 'invalid_client', description: 'Client authentication failed', detail: 'no client_id', lookups: [] },
  },
  {
    name: 'an authenticated caller without a token → invalid_request',
    request: { body: {}, authorization: asClientA },
    expected: { error: InvalidRequestError, code: 'invalid_request', description: 'The token parameter is required', lookups: [] },
  },
  {
    name: 'an oversized token → invalid_request',
    request: { body: { token: 't'.repeat(4097) }, authorization: asResourceServer },
    expected: { error: InvalidRequestError, code: 'invalid_request', description: 'The token parameter is too long', lookups: [] },
  },
];

describe('IntrospectionService (RFC 7662)', () => {
  it.each(cases)('$name', async ({ request, expected }) => {
    const { service, lookups } = setup();

    const outcome = service.introspect(request.body, request.authorization);

    if ('error' in expected) {
      const error = await outcome.then(
        () => {
          throw new Error('expected an OAuth error, got an answer');
        },
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(expected.error);
      expect(error).toMatchObject({ error: expected.code, description: expected.description });
      if (expected.detail) expect((error as OAuthError).internalDetail).toBe(expected.detail);
      if (expected.basicChallenge !== undefined) {
        expect((error as OAuthError).headers['www-authenticate']).toBe(expected.basicChallenge ? 'Basic realm="oauth", charset="UTF-8"' : undefined);
      }
    } else {
      expect(await outcome).toEqual(expected.response);
    }
    expect(lookups).toEqual(expected.lookups);
  });
});
