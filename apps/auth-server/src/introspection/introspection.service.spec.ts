import { InvalidClientError, InvalidRequestError } from '@platform/oauth-errors';
import type { IntrospectionResponse } from '@platform/contracts';
import {
  accessTokenRow,
  authenticatorOver,
  basic,
  confidentialClient,
  directoryClient,
  type ExpectedOAuthError,
  expectOAuthError,
  ISSUER,
  refreshTokenRow,
  TOKEN_TIMES,
  tokenLookupOver,
} from '../../test/support/unit-fixtures';
import type { AuthConfig } from '../config/auth-config';
import { IntrospectionService } from './introspection.service';

/**
 * Table-driven unit spec of RFC 7662 introspection. Each case names the caller (the resource
 * server's credentials or a client's), the token and hint, and the exact answer plus the token
 * lookups made, in order. The real ClientAuthenticator and TokenLookup run over in-memory
 * doubles of what lies below them (test/support/unit-fixtures.ts): ClientDirectory.findClient
 * and the token store (live access tokens; refresh tokens in any state).
 */

const RS = { id: 'resource-server', secret: 'resource-server-secret' };
const config = { issuer: ISSUER, introspectionClient: RS } satisfies Pick<AuthConfig, 'issuer' | 'introspectionClient'> as AuthConfig;
const SECRET = 'client-secret-value';

const CLIENTS = [confidentialClient('client-a', SECRET), confidentialClient('client-b', SECRET), directoryClient({ id: 'public-app' })];

// Raw tokens shaped like ours (TokenLookup refuses anything else without a lookup).
const ACCESS_A = 'access-token-of-client-a-000001';
const ACCESS_B = 'access-token-of-client-b-000001';
const REFRESH_A = 'refresh-token-of-client-a-00001';
const REFRESH_B = 'refresh-token-of-client-b-00001';
const ROTATED_A = 'refresh-token-rotated-client-a-1';

const REFRESH_SCOPE = { scope: 'courses:read courses:write' };
const ACCESS = [accessTokenRow(ACCESS_A, 'client-a'), accessTokenRow(ACCESS_B, 'client-b')];
const REFRESH = [
  refreshTokenRow(REFRESH_A, 'client-a', REFRESH_SCOPE),
  refreshTokenRow(REFRESH_B, 'client-b', REFRESH_SCOPE),
  refreshTokenRow(ROTATED_A, 'client-a', { ...REFRESH_SCOPE, rotatedAt: new Date(Date.now() - 1000) }),
];

function setup() {
  const lookups: string[] = [];
  const service = new IntrospectionService(config, authenticatorOver(CLIENTS), tokenLookupOver(ACCESS, REFRESH, lookups));
  return { service, lookups };
}

const asResourceServer = basic(RS.id, RS.secret);
const asClientA = basic('client-a', SECRET);

const active = (kind: 'Bearer' | 'refresh_token', clientId: string, scope: string): IntrospectionResponse => ({
  active: true,
  scope,
  client_id: clientId,
  sub: 'user-1',
  aud: ISSUER,
  iss: ISSUER,
  exp: Math.floor(TOKEN_TIMES.expiresAt.getTime() / 1000),
  iat: Math.floor(TOKEN_TIMES.issuedAt.getTime() / 1000),
  token_type: kind,
  school_id: 'school-1',
});
const INACTIVE: IntrospectionResponse = { active: false };

interface Case {
  name: string;
  request: { body: Record<string, string>; authorization?: string };
  expected: { response: IntrospectionResponse; lookups: string[] } | (ExpectedOAuthError & { lookups: string[] });
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

    if ('error' in expected) await expectOAuthError(outcome, expected);
    else expect(await outcome).toEqual(expected.response);
    expect(lookups).toEqual(expected.lookups);
  });
});
