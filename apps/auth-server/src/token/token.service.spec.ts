import type { TokenResponse } from '@platform/contracts';
import {
  InvalidClientError,
  InvalidDpopProofError,
  InvalidGrantError,
  InvalidRequestError,
  TooManyRequestsError,
  UnsupportedGrantTypeError,
} from '@platform/oauth-errors';
import { MemoryRateLimitStore } from '@platform/rate-limits';
import type { FastifyRequest } from 'fastify';
import { authenticatorOver, basic, confidentialClient, directoryClient, type ExpectedOAuthError, expectOAuthError } from '../../test/support/unit-fixtures';
import { MetadataDocumentError } from '../client-metadata-documents';
import type { AuthConfig } from '../config/auth-config';
import { loadLimitsConfig } from '../config/limits-config';
import type { AuthMetrics } from '../observability/auth-metrics';
import type { TokenEndpointDpop } from './dpop/token-endpoint-dpop';
import type { AuthorizationCodeGrant } from './grants/authorization-code.grant';
import type { GrantHandler } from './grants/grant-handler';
import type { RefreshTokenGrant } from './grants/refresh-token.grant';
import { UnmatchedGrantError } from './grants/unmatched-grant.error';
import { TokenEndpointLimits } from './token-endpoint-limits';
import { TokenEndpointMetrics } from './token-endpoint-metrics';
import { TokenService } from './token.service';

/**
 * Table-driven unit spec of the token endpoint's dispatch (RFC 6749 §3.2, §5.2): the grant type
 * is read first, then the client authenticated (the real ClientAuthenticator over a directory
 * double, test/support/unit-fixtures.ts), then exactly one grant handler runs. The grants are
 * recording doubles; their own tables are in grants/*.grant.spec.ts.
 */

const CLIENT = directoryClient({ id: 'public-app' });
const CONFIDENTIAL = confidentialClient('web-app', 'the-secret');
const DPOP_BOUND = directoryClient({ id: 'dpop-app', dpopBoundAccessTokens: true });
const RESPONSE: TokenResponse = { access_token: 'at', token_type: 'Bearer', expires_in: 900, scope: 'courses:read' };
const ADDRESS = '198.51.100.7';

function setup(env: Record<string, string> = {}, grantError?: Error) {
  const calls: string[] = [];
  const grant = <T extends string>(grantType: T) => ({
    grantType,
    async handle(client: { id: string }, _params: unknown, context: { address: string; dpopJkt: string | null }) {
      calls.push(`${grantType} for ${client.id} from ${context.address}${context.dpopJkt ? ` with DPoP key ${context.dpopJkt}` : ''}`);
      if (grantError) throw grantError;
      return RESPONSE;
    },
  });
  const authorizationCode: GrantHandler = grant('authorization_code');
  const refreshToken: GrantHandler = grant('refresh_token');
  const metrics: Pick<AuthMetrics, 'tokenIssued'> = { tokenIssued: (grantType) => calls.push(`metric ${grantType}`) };
  const config = { limits: loadLimitsConfig(env) } as AuthConfig;
  const limits = new TokenEndpointLimits(new MemoryRateLimitStore(), config, new TokenEndpointMetrics());
  const service = new TokenService(
    authenticatorOver([CLIENT, CONFIDENTIAL, DPOP_BOUND], (clientId) => {
      calls.push(`findClient ${clientId}`);
      if (clientId.startsWith('https://')) throw new MetadataDocumentError('unreachable', 'the document could not be fetched');
    }),
    authorizationCode as unknown as AuthorizationCodeGrant,
    refreshToken as unknown as RefreshTokenGrant,
    limits,
    dpopDouble(calls),
    metrics as AuthMetrics,
  );
  /** Whether the token route's hook refuses this address before reading the body. */
  const refusedAt = (ip: string) => limits.failureCheck().check({} as FastifyRequest, ip) !== undefined;
  return { service, calls, refusedAt };
}

/** A proof is its key's name; 'forged' is refused as TokenEndpointDpop would. */
function dpopDouble(calls: string[]): TokenEndpointDpop {
  return {
    async proofKey(header: string | string[] | undefined) {
      if (header === undefined) return null;
      calls.push(`DPoP proof ${String(header)}`);
      if (header === 'forged') throw new InvalidDpopProofError('The DPoP proof is invalid');
      return String(header);
    },
  } as unknown as TokenEndpointDpop;
}

interface Case {
  name: string;
  dpop?: string;
  request: Record<string, string | string[]>;
  expected: { issued: true; calls: string[] } | (ExpectedOAuthError & { calls: string[] });
}

const UNSUPPORTED = 'Unsupported grant_type; supported: authorization_code, refresh_token';

const cases: Case[] = [
  {
    name: 'authorization_code runs the authorization code grant for the authenticated client',
    request: { grant_type: 'authorization_code', client_id: CLIENT.id },
    expected: { issued: true, calls: ['findClient public-app', `authorization_code for public-app from ${ADDRESS}`, 'metric authorization_code'] },
  },
  {
    name: 'refresh_token runs the refresh token grant',
    request: { grant_type: 'refresh_token', client_id: CLIENT.id },
    expected: { issued: true, calls: ['findClient public-app', `refresh_token for public-app from ${ADDRESS}`, 'metric refresh_token'] },
  },
  {
    name: 'a missing grant_type → invalid_request, no client lookup',
    request: { client_id: CLIENT.id },
    expected: { error: InvalidRequestError, code: 'invalid_request', description: 'The grant_type parameter is required', calls: [] },
  },
  {
    name: 'a repeated grant_type → invalid_request (§3.2)',
    request: { grant_type: ['authorization_code', 'refresh_token'], client_id: CLIENT.id },
    expected: { error: InvalidRequestError, code: 'invalid_request', description: 'The grant_type parameter is repeated', calls: [] },
  },
  {
    name: 'the password grant → unsupported_grant_type (§5.2), no client lookup',
    request: { grant_type: 'password', client_id: CLIENT.id, username: 'u', password: 'p' },
    expected: { error: UnsupportedGrantTypeError, code: 'unsupported_grant_type', description: UNSUPPORTED, calls: [] },
  },
  {
    name: 'client_credentials → unsupported_grant_type',
    request: { grant_type: 'client_credentials', client_id: CLIENT.id },
    expected: { error: UnsupportedGrantTypeError, code: 'unsupported_grant_type', description: UNSUPPORTED, calls: [] },
  },
  {
    name: 'an unknown client → invalid_client, no grant runs',
    request: { grant_type: 'authorization_code', client_id: 'nobody' },
    expected: { error: InvalidClientError, code: 'invalid_client', description: 'Client authentication failed', calls: ['findClient nobody'] },
  },
  {
    name: 'a DPoP proof is checked after the client authenticated; the grant gets its key (RFC 9449 §5)',
    dpop: 'key-1',
    request: { grant_type: 'authorization_code', client_id: CLIENT.id },
    expected: {
      issued: true,
      calls: ['findClient public-app', 'DPoP proof key-1', `authorization_code for public-app from ${ADDRESS} with DPoP key key-1`, 'metric authorization_code'],
    },
  },
  {
    name: 'an invalid DPoP proof → invalid_dpop_proof, no grant runs',
    dpop: 'forged',
    request: { grant_type: 'refresh_token', client_id: CLIENT.id },
    expected: { error: InvalidDpopProofError, code: 'invalid_dpop_proof', description: 'The DPoP proof is invalid', calls: ['findClient public-app', 'DPoP proof forged'] },
  },
  {
    name: 'a client registered with dpop_bound_access_tokens and no proof → invalid_dpop_proof (RFC 9449 §5.2)',
    request: { grant_type: 'authorization_code', client_id: DPOP_BOUND.id },
    expected: {
      error: InvalidDpopProofError,
      code: 'invalid_dpop_proof',
      description: 'A DPoP proof is required: this client registered dpop_bound_access_tokens',
      calls: ['findClient dpop-app'],
    },
  },
  {
    name: 'the same client with a proof is served',
    dpop: 'key-2',
    request: { grant_type: 'authorization_code', client_id: DPOP_BOUND.id },
    expected: { issued: true, calls: ['findClient dpop-app', 'DPoP proof key-2', `authorization_code for dpop-app from ${ADDRESS} with DPoP key key-2`, 'metric authorization_code'] },
  },
];

describe('TokenService (RFC 6749 §3.2 token endpoint dispatch)', () => {
  it.each(cases)('$name', async ({ request, dpop, expected }) => {
    const { service, calls } = setup();

    const outcome = service.exchange(request, undefined, ADDRESS, dpop);

    if ('error' in expected) await expectOAuthError(outcome, expected);
    else expect(await outcome).toBe(RESPONSE);
    expect(calls).toEqual(expected.calls);
  });
});

describe('TokenService: the limits counted as the request goes on', () => {
  const tryOnce = (service: TokenService, request: Record<string, string>, ip: string, authorization?: string) =>
    service.exchange(request, authorization, ip).then(
      () => 'issued',
      (error: { error?: string }) => error.error,
    );

  it('failures that look like guessing throttle their address, not the same client’s users elsewhere', async () => {
    const { service, refusedAt } = setup({ RATE_LIMIT_TOKEN_FAILURES_PER_IP: '2' });
    const wrongSecret = { grant_type: 'refresh_token' };
    for (let i = 0; i < 3; i++) expect(await tryOnce(service, wrongSecret, '203.0.113.66', basic(CONFIDENTIAL.id, 'guess'))).toBe('invalid_client');
    expect(refusedAt('203.0.113.66')).toBe(true);
    expect(refusedAt(ADDRESS)).toBe(false);
    expect(await tryOnce(service, wrongSecret, ADDRESS, basic(CONFIDENTIAL.id, 'the-secret'))).toBe('issued');
  });

  it('an IPv6 guesser is counted per /64: rotating addresses within it does not help', async () => {
    const { service, refusedAt } = setup({ RATE_LIMIT_TOKEN_FAILURES_PER_IP: '2' });
    for (let i = 1; i <= 3; i++) await tryOnce(service, { grant_type: 'refresh_token', client_id: 'nobody' }, `2001:db8:1:2::${i}`);
    expect(refusedAt('2001:db8:1:2::ffff')).toBe(true);
    expect(refusedAt('2001:db8:1:3::1')).toBe(false);
  });

  it.each<[string, Record<string, string>, Error | undefined]>([
    ['an unmatched code or refresh token', { grant_type: 'refresh_token', client_id: CLIENT.id }, new UnmatchedGrantError('x')],
    ['an unknown client', { grant_type: 'refresh_token', client_id: 'nobody' }, undefined],
  ])('counts %s', async (_name, request, grantError) => {
    const { service, refusedAt } = setup({ RATE_LIMIT_TOKEN_FAILURES_PER_IP: '2' }, grantError);
    for (let i = 0; i < 3; i++) await tryOnce(service, request, ADDRESS);
    expect(refusedAt(ADDRESS)).toBe(true);
  });

  it.each<[string, Record<string, string>, Error | undefined]>([
    ['an expired, revoked or rotated-out refresh token (known, ordinary)', { grant_type: 'refresh_token', client_id: CLIENT.id }, new InvalidGrantError('x', 'expired or revoked')],
    ['a metadata document that could not be fetched (the document host’s failure)', { grant_type: 'refresh_token', client_id: 'https://agent.example/client.json' }, undefined],
    ['a malformed request', { client_id: CLIENT.id }, undefined],
    ['an unsupported grant type', { grant_type: 'password', client_id: CLIENT.id }, undefined],
  ])('never counts %s', async (_name, request, grantError) => {
    const { service, refusedAt } = setup({ RATE_LIMIT_TOKEN_FAILURES_PER_IP: '2' }, grantError);
    for (let i = 0; i < 5; i++) expect(await tryOnce(service, request, ADDRESS)).not.toBe('issued');
    expect(refusedAt(ADDRESS)).toBe(false);
  });

  it('a client that authenticated spends its own budget, checked before any grant runs', async () => {
    const { service, calls } = setup({ RATE_LIMIT_TOKEN_PER_AUTHENTICATED_CLIENT: '2' });
    const request = { grant_type: 'refresh_token' };
    for (let i = 0; i < 2; i++) expect(await tryOnce(service, request, ADDRESS, basic(CONFIDENTIAL.id, 'the-secret'))).toBe('issued');
    calls.length = 0;
    const refused = await service.exchange(request, basic(CONFIDENTIAL.id, 'the-secret'), '203.0.113.1').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TooManyRequestsError);
    expect(refused).toMatchObject({ description: expect.stringMatching(/^Too many requests to the token endpoint for this client; retry after \d+ seconds$/) });
    expect(calls).toEqual([`findClient ${CONFIDENTIAL.id}`]);
  });

  it('nobody can spend a confidential client’s budget without its secret, nor a public client’s at all', async () => {
    const { service } = setup({ RATE_LIMIT_TOKEN_PER_AUTHENTICATED_CLIENT: '2', RATE_LIMIT_TOKEN_FAILURES_PER_IP: '1000' });
    for (let i = 0; i < 10; i++) expect(await tryOnce(service, { grant_type: 'refresh_token' }, '203.0.113.66', basic(CONFIDENTIAL.id, 'guess'))).toBe('invalid_client');
    for (let i = 0; i < 10; i++) expect(await tryOnce(service, { grant_type: 'refresh_token', client_id: CLIENT.id }, `203.0.113.${i}`)).toBe('issued');
    expect(await tryOnce(service, { grant_type: 'refresh_token' }, ADDRESS, basic(CONFIDENTIAL.id, 'the-secret'))).toBe('issued');
  });

  it('RATE_LIMITS_ENABLED=false: nothing is counted', async () => {
    const { service, refusedAt } = setup({ RATE_LIMITS_ENABLED: 'false', RATE_LIMIT_TOKEN_FAILURES_PER_IP: '1', RATE_LIMIT_TOKEN_PER_AUTHENTICATED_CLIENT: '1' });
    for (let i = 0; i < 3; i++) await tryOnce(service, { grant_type: 'refresh_token', client_id: 'nobody' }, ADDRESS);
    expect(refusedAt(ADDRESS)).toBe(false);
    for (let i = 0; i < 3; i++) expect(await tryOnce(service, { grant_type: 'refresh_token' }, ADDRESS, basic(CONFIDENTIAL.id, 'the-secret'))).toBe('issued');
  });
});
