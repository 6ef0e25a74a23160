import type { TokenResponse } from '@platform/contracts';
import { InvalidClientError, InvalidRequestError, UnsupportedGrantTypeError } from '@platform/oauth-errors';
import { authenticatorOver, directoryClient, type ExpectedOAuthError, expectOAuthError } from '../../test/support/unit-fixtures';
import type { AuthMetrics } from '../observability/auth-metrics';
import type { AuthorizationCodeGrant } from './grants/authorization-code.grant';
import type { RefreshTokenGrant } from './grants/refresh-token.grant';
import { TokenService } from './token.service';

/**
 * Table-driven unit spec of the token endpoint's dispatch (RFC 6749 §3.2, §5.2): the grant type
 * is read first, then the client authenticated (the real ClientAuthenticator over a directory
 * double, test/support/unit-fixtures.ts), then exactly one grant handler runs. The grants are
 * recording doubles; their own tables are in grants/*.grant.spec.ts.
 */

const CLIENT = directoryClient({ id: 'public-app' });
const RESPONSE: TokenResponse = { access_token: 'at', token_type: 'Bearer', expires_in: 900, scope: 'courses:read' };

function setup() {
  const calls: string[] = [];
  const grant = <T extends string>(grantType: T) => ({
    grantType,
    async handle(client: { id: string }) {
      calls.push(`${grantType} for ${client.id}`);
      return RESPONSE;
    },
  });
  const authorizationCode: Pick<AuthorizationCodeGrant, 'grantType' | 'handle'> = grant('authorization_code');
  const refreshToken: Pick<RefreshTokenGrant, 'grantType' | 'handle'> = grant('refresh_token');
  const metrics: Pick<AuthMetrics, 'tokenIssued'> = { tokenIssued: (grantType) => calls.push(`metric ${grantType}`) };
  const service = new TokenService(
    authenticatorOver([CLIENT], (clientId) => calls.push(`findClient ${clientId}`)),
    authorizationCode as AuthorizationCodeGrant,
    refreshToken as RefreshTokenGrant,
    metrics as AuthMetrics,
  );
  return { service, calls };
}

interface Case {
  name: string;
  request: Record<string, string | string[]>;
  expected: { issued: true; calls: string[] } | (ExpectedOAuthError & { calls: string[] });
}

const UNSUPPORTED = 'Unsupported grant_type; supported: authorization_code, refresh_token';

const cases: Case[] = [
  {
    name: 'authorization_code runs the authorization code grant for the authenticated client',
    request: { grant_type: 'authorization_code', client_id: CLIENT.id },
    expected: { issued: true, calls: ['findClient public-app', 'authorization_code for public-app', 'metric authorization_code'] },
  },
  {
    name: 'refresh_token runs the refresh token grant',
    request: { grant_type: 'refresh_token', client_id: CLIENT.id },
    expected: { issued: true, calls: ['findClient public-app', 'refresh_token for public-app', 'metric refresh_token'] },
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
];

describe('TokenService (RFC 6749 §3.2 token endpoint dispatch)', () => {
  it.each(cases)('$name', async ({ request, expected }) => {
    const { service, calls } = setup();

    const outcome = service.exchange(request);

    if ('error' in expected) await expectOAuthError(outcome, expected);
    else expect(await outcome).toBe(RESPONSE);
    expect(calls).toEqual(expected.calls);
  });
});
