import { InvalidClientError, InvalidRequestError } from '@platform/oauth-errors';
import {
  accessTokenRow,
  authenticatorOver,
  basic,
  confidentialClient,
  directoryClient,
  type ExpectedOAuthError,
  expectOAuthError,
  recordingRevoker,
  refreshTokenRow,
  TOKEN_GRANT,
  tokenLookupOver,
} from '../../test/support/unit-fixtures';
import type { SecurityEventInput } from '../security-events/security-event';
import type { SecurityEvents } from '../security-events/security-events';
import { RevocationService } from './revocation.service';

/**
 * Table-driven unit spec of RFC 7009 revocation. Each case names the caller, the token and
 * hint, and the outcome plus every storage call in order: token lookups ('access', 'refresh')
 * and revocations (one access token, or a whole grant). The real ClientAuthenticator and
 * TokenLookup run over in-memory doubles (test/support/unit-fixtures.ts) of
 * ClientDirectory.findClient and the token store (live access tokens; refresh tokens in any
 * state); GrantRevoker is a recording double (what it writes and publishes: grant-revoker.spec.ts),
 * and so is SecurityEvents (the security event of a revocation, after it).
 */

const SECRET = 'client-secret-value';
const NOW = Date.now();

const CLIENTS = [confidentialClient('client-a', SECRET), confidentialClient('client-b', SECRET), directoryClient({ id: 'public-app' })];

// Raw tokens shaped like ours (TokenLookup refuses anything else without a lookup).
const ACCESS_A = 'access-token-of-client-a-000001';
const ACCESS_B = 'access-token-of-client-b-000001';
const ACCESS_PUBLIC = 'access-token-of-public-app-0001';
const REFRESH_A = 'refresh-token-of-client-a-00001';
const REFRESH_B = 'refresh-token-of-client-b-00001';
const ROTATED_A = 'refresh-token-rotated-client-a-1';
const ROTATED_B = 'refresh-token-rotated-client-b-1';
const REVOKED_A = 'refresh-token-revoked-client-a-1';

const ACCESS = [accessTokenRow(ACCESS_A, 'client-a'), accessTokenRow(ACCESS_B, 'client-b'), accessTokenRow(ACCESS_PUBLIC, 'public-app')];
const REFRESH = [
  refreshTokenRow(REFRESH_A, 'client-a'),
  refreshTokenRow(REFRESH_B, 'client-b'),
  refreshTokenRow(ROTATED_A, 'client-a', { rotatedAt: new Date(NOW - 3600_000) }),
  refreshTokenRow(ROTATED_B, 'client-b', { rotatedAt: new Date(NOW - 3600_000) }),
  refreshTokenRow(REVOKED_A, 'client-a', { revokedAt: new Date(NOW - 1000), grant: { ...TOKEN_GRANT, revokedAt: new Date(NOW - 1000) } }),
];

function setup() {
  const calls: string[] = [];
  const recorded: SecurityEventInput[] = [];
  const events = {
    record: async (event: SecurityEventInput) => {
      recorded.push(event);
      calls.push(`event ${event.type} ${String(event.data?.['token_type'])}`);
    },
  } as unknown as SecurityEvents;
  const service = new RevocationService(authenticatorOver(CLIENTS), tokenLookupOver(ACCESS, REFRESH, calls), recordingRevoker(calls), events);
  return { service, calls, recorded };
}

const asClientA = basic('client-a', SECRET);

interface Case {
  name: string;
  request: { body: Record<string, string>; authorization?: string };
  /** `revoked`: the endpoint answers 200 (the service resolves); the calls say what changed. */
  expected: { revoked: true; calls: string[] } | (ExpectedOAuthError & { calls: string[] });
}

const ACCESS_A_WRITES = [`revokeAccessToken id-${ACCESS_A}`, 'event auth.token.revoked access_token'];
const GRANT_A_WRITES = ['revokeGrant grant-client-a revocation', 'event auth.token.revoked refresh_token'];

const cases: Case[] = [
  {
    name: 'its own access token: revoked alone',
    request: { body: { token: ACCESS_A }, authorization: asClientA },
    expected: { revoked: true, calls: ['access', ...ACCESS_A_WRITES] },
  },
  {
    name: 'its own refresh token ends the grant with every token it produced (§2.1 SHOULD)',
    request: { body: { token: REFRESH_A }, authorization: asClientA },
    expected: { revoked: true, calls: ['access', 'refresh', ...GRANT_A_WRITES] },
  },
  {
    name: 'token_type_hint=refresh_token: refresh tokens are searched first (§2.1)',
    request: { body: { token: REFRESH_A, token_type_hint: 'refresh_token' }, authorization: asClientA },
    expected: { revoked: true, calls: ['refresh', ...GRANT_A_WRITES] },
  },
  {
    name: 'token_type_hint=access_token on a refresh token: the search extends to every type (§2.1 MUST)',
    request: { body: { token: REFRESH_A, token_type_hint: 'access_token' }, authorization: asClientA },
    expected: { revoked: true, calls: ['access', 'refresh', ...GRANT_A_WRITES] },
  },
  {
    name: 'token_type_hint=refresh_token on an access token: still found and revoked',
    request: { body: { token: ACCESS_A, token_type_hint: 'refresh_token' }, authorization: asClientA },
    expected: { revoked: true, calls: ['refresh', 'access', ...ACCESS_A_WRITES] },
  },
  {
    name: 'an unknown hint is ignored (§2.1), access tokens first',
    request: { body: { token: REFRESH_A, token_type_hint: 'id_token' }, authorization: asClientA },
    expected: { revoked: true, calls: ['access', 'refresh', ...GRANT_A_WRITES] },
  },
  {
    name: 'a rotated-out refresh token of its own still ends the grant',
    request: { body: { token: ROTATED_A }, authorization: asClientA },
    expected: { revoked: true, calls: ['access', 'refresh', 'refresh', ...GRANT_A_WRITES] },
  },
  {
    name: 'an unknown token → 200, nothing written (§2.2: invalid tokens do not cause an error)',
    request: { body: { token: 'unknown-token-abcdefghijklmn' }, authorization: asClientA },
    expected: { revoked: true, calls: ['access', 'refresh', 'refresh'] },
  },
  {
    name: 'a value that cannot be one of our tokens → 200 without a lookup',
    request: { body: { token: 'not a token!' }, authorization: asClientA },
    expected: { revoked: true, calls: [] },
  },
  {
    name: 'an already revoked refresh token → 200, nothing written',
    request: { body: { token: REVOKED_A }, authorization: asClientA },
    expected: { revoked: true, calls: ['access', 'refresh', 'refresh'] },
  },
  {
    name: "another client's access token → 200 and left untouched",
    request: { body: { token: ACCESS_B }, authorization: asClientA },
    expected: { revoked: true, calls: ['access'] },
  },
  {
    name: "another client's refresh token → 200 and its grant left alive",
    request: { body: { token: REFRESH_B }, authorization: asClientA },
    expected: { revoked: true, calls: ['access', 'refresh'] },
  },
  {
    name: "another client's rotated refresh token → 200 and its grant left alive",
    request: { body: { token: ROTATED_B }, authorization: asClientA },
    expected: { revoked: true, calls: ['access', 'refresh', 'refresh'] },
  },
  {
    name: 'a public client revokes its own token with client_id alone',
    request: { body: { token: ACCESS_PUBLIC, client_id: 'public-app' } },
    expected: { revoked: true, calls: ['access', `revokeAccessToken id-${ACCESS_PUBLIC}`, 'event auth.token.revoked access_token'] },
  },
  {
    name: 'a wrong secret in HTTP Basic → invalid_client with the Basic challenge, no lookup (§2.1: authenticate first)',
    request: { body: { token: ACCESS_A }, authorization: basic('client-a', 'wrong') },
    expected: { error: InvalidClientError, code: 'invalid_client', description: 'Client authentication failed', basicChallenge: true, calls: [] },
  },
  {
    name: 'a confidential client without its secret → invalid_client',
    request: { body: { token: ACCESS_A, client_id: 'client-a' } },
    expected: { error: InvalidClientError, code: 'invalid_client', description: 'Client authentication failed', basicChallenge: false, calls: [] },
  },
  {
    name: 'an unknown client → invalid_client',
    request: { body: { token: ACCESS_A, client_id: 'nobody' } },
    expected: { error: InvalidClientError, code: 'invalid_client', description: 'Client authentication failed', basicChallenge: false, calls: [] },
  },
  {
    name: 'no token → invalid_request',
    request: { body: {}, authorization: asClientA },
    expected: { error: InvalidRequestError, code: 'invalid_request', description: 'The token parameter is required', calls: [] },
  },
  {
    name: 'an oversized token → invalid_request',
    request: { body: { token: 't'.repeat(4097) }, authorization: asClientA },
    expected: { error: InvalidRequestError, code: 'invalid_request', description: 'The token parameter is too long', calls: [] },
  },
];

describe('RevocationService (RFC 7009)', () => {
  it.each(cases)('$name', async ({ request, expected }) => {
    const { service, calls } = setup();

    const outcome = service.revoke(request.body, request.authorization);

    if ('error' in expected) await expectOAuthError(outcome, expected);
    else await expect(outcome).resolves.toBeUndefined();
    expect(calls).toEqual(expected.calls);
  });

  it('records who revoked what: the client, its grant, the user’s school, the caller’s address; never the token', async () => {
    const { service, recorded } = setup();
    await service.revoke({ token: REFRESH_A }, asClientA, '198.51.100.4');
    expect(recorded).toEqual([
      {
        type: 'auth.token.revoked',
        schoolId: 'school-1',
        actor: { type: 'client', id: 'client-a' },
        subject: { type: 'grant', id: 'grant-client-a' },
        clientId: 'client-a',
        address: '198.51.100.4',
        data: { token_type: 'refresh_token', grant_ended: true, user_id: 'user-1' },
      },
    ]);
  });
});
