import { InvalidGrantError, InvalidRequestError, InvalidTargetError, UnauthorizedClientError } from '@platform/oauth-errors';
import type { RegisteredClient } from '../../clients/clients.repository';
import { FormParams } from '../../http/form-params';
import { hashToken } from '../../crypto/tokens';
import { type ExpectedOAuthError, expectOAuthError, expectTokenResponse, grantConfig, HOUR, ISSUER, recordingRevoker, registeredClient, tokenIssuerOver } from '../../../test/support/unit-fixtures';
import { MemoryRateLimitStore } from '@platform/rate-limits';
import { loadLimitsConfig } from '../../config/limits-config';
import { Clock } from '../clock';
import { TokenEndpointLimits } from '../token-endpoint-limits';
import { TokenEndpointMetrics } from '../token-endpoint-metrics';
import type { ConsumedCodeRow, IssuedRow, NewTokens, TokenQueries } from '../token-queries';
import { AuthorizationCodeGrant } from './authorization-code.grant';
import { challengeOf } from './pkce';
import { UnmatchedGrantError } from './unmatched-grant.error';

/**
 * Table-driven unit spec (fosite flow_authorize_code_token_test.go style): each case names what
 * the storage holds, the token request, and the exact error or response plus the storage calls.
 * The storage is an in-memory double of the two TokenQueries methods the grant uses, keeping
 * their documented contract (token-queries.ts); the SQL itself is proven in test/token-store.
 * TokenIssuer is the real class (pure) over doubles of the key service and the token cache
 * (test/support/unit-fixtures.ts).
 */

const config = { ...grantConfig(), limits: loadLimitsConfig({}) };

const CODE = 'code-abcdefghijklmnopqrstuvwxyz';
const VERIFIER = 'v'.repeat(43);
const REDIRECT = 'http://127.0.0.1:8765/callback';

interface StoredCode {
  clientId: string;
  grantId: string;
  redirectUri: string;
  codeChallenge: string;
  expiresAt: Date;
  used: boolean;
  grantRevokedAt: Date | null;
  scope: string;
}

type Storage = Map<string, StoredCode>;

function client(overrides: Partial<RegisteredClient> = {}): RegisteredClient {
  return registeredClient({ id: 'client-a', name: 'A', redirectUris: [REDIRECT], scope: 'openid courses:read', ...overrides });
}

function storedCode(overrides: Partial<StoredCode> = {}): StoredCode {
  return {
    clientId: 'client-a',
    grantId: 'grant-1',
    redirectUri: REDIRECT,
    codeChallenge: challengeOf(VERIFIER),
    expiresAt: new Date(Date.now() + HOUR),
    used: false,
    grantRevokedAt: null,
    scope: 'courses:read',
    ...overrides,
  };
}

/** The documented contract of consumeCodeAndIssue / findCodeClientByHash, in memory. */
function queriesDouble(storage: Storage, calls: string[]): Pick<TokenQueries, 'consumeCodeAndIssue' | 'findCodeClientByHash'> {
  return {
    async consumeCodeAndIssue(codeHash: string, clientId: string, redirectUri: string, codeChallenge: string, tokens: NewTokens) {
      calls.push('consumeCodeAndIssue');
      const code = storage.get(codeHash);
      // Nothing consumed: unknown, another client's, or already used.
      if (!code || code.clientId !== clientId || code.used) return null;
      code.used = true;
      const valid =
        code.expiresAt > tokens.now && !code.grantRevokedAt && code.redirectUri === redirectUri && code.codeChallenge === codeChallenge;
      const issued: IssuedRow = {
        grantId: code.grantId,
        clientId,
        userId: 'user-1',
        schoolId: 'school-1',
        resource: ISSUER,
        nonce: 'n-1',
        authTime: new Date('2026-11-23T12:00:00Z'),
        accessScope: code.scope,
      };
      const row: ConsumedCodeRow = {
        expiresAt: code.expiresAt,
        redirectUri: code.redirectUri,
        codeChallenge: code.codeChallenge,
        grantRevokedAt: code.grantRevokedAt,
        issued: valid ? issued : null,
      };
      return row;
    },
    async findCodeClientByHash(codeHash: string) {
      calls.push('findCodeClientByHash');
      const code = storage.get(codeHash);
      return code ? { clientId: code.clientId, grantId: code.grantId } : null;
    },
  };
}

function setup(codes: Record<string, StoredCode>) {
  const storage: Storage = new Map(Object.entries(codes).map(([raw, code]) => [hashToken(raw), code]));
  const calls: string[] = [];
  const issuer = tokenIssuerOver(config, () => calls.push('remember access token'));
  const limits = new TokenEndpointLimits(new MemoryRateLimitStore(), config, new TokenEndpointMetrics());
  const grant = new AuthorizationCodeGrant(config, queriesDouble(storage, calls) as TokenQueries, issuer, recordingRevoker(calls), limits, new Clock());
  return { grant, storage, calls };
}

interface Case {
  name: string;
  given: { codes: Record<string, StoredCode>; client?: Partial<RegisteredClient> };
  request: Record<string, string | string[]>;
  /** Run before the request under test (e.g. a first exchange). */
  before?: Record<string, string | string[]>;
  expected: (ExpectedOAuthError & { calls: string[] }) | { response: { scope: string; refreshToken: boolean; idToken: boolean }; calls: string[] };
}

const exchange = (overrides: Record<string, string | string[]> = {}) => ({
  code: CODE,
  redirect_uri: REDIRECT,
  code_verifier: VERIFIER,
  ...overrides,
});
const INVALID = 'The authorization code is invalid, expired or already used';
const ISSUED_CALLS = ['consumeCodeAndIssue', 'remember access token'];

const cases: Case[] = [
  {
    name: 'a valid code, verifier and redirect_uri issue an access and a refresh token',
    given: { codes: { [CODE]: storedCode() } },
    request: exchange(),
    expected: { response: { scope: 'courses:read', refreshToken: true, idToken: false }, calls: ISSUED_CALLS },
  },
  {
    name: 'openid in the grant adds an ID token (OIDC Core §3.1.3.3)',
    given: { codes: { [CODE]: storedCode({ scope: 'openid courses:read' }) } },
    request: exchange(),
    expected: { response: { scope: 'openid courses:read', refreshToken: true, idToken: true }, calls: ISSUED_CALLS },
  },
  {
    name: 'a client not registered for refresh_token gets no refresh token',
    given: { codes: { [CODE]: storedCode() }, client: { grantTypes: ['authorization_code'] } },
    request: exchange(),
    expected: { response: { scope: 'courses:read', refreshToken: false, idToken: false }, calls: ISSUED_CALLS },
  },
  {
    name: 'a resource this server serves (RFC 8707, /mcp spelling) is accepted',
    given: { codes: { [CODE]: storedCode() } },
    request: exchange({ resource: `${ISSUER}/mcp` }),
    expected: { response: { scope: 'courses:read', refreshToken: true, idToken: false }, calls: ISSUED_CALLS },
  },
  {
    name: 'missing code → invalid_request, storage untouched',
    given: { codes: { [CODE]: storedCode() } },
    request: { redirect_uri: REDIRECT, code_verifier: VERIFIER },
    expected: { error: InvalidRequestError, code: 'invalid_request', description: 'The code parameter is required', calls: [] },
  },
  {
    name: 'missing redirect_uri → invalid_request (§4.1.3: required when sent in the authorization request)',
    given: { codes: { [CODE]: storedCode() } },
    request: { code: CODE, code_verifier: VERIFIER },
    expected: { error: InvalidRequestError, code: 'invalid_request', description: 'The redirect_uri parameter is required', calls: [] },
  },
  {
    name: 'missing code_verifier → invalid_request (RFC 7636 §4.5: PKCE is required)',
    given: { codes: { [CODE]: storedCode() } },
    request: { code: CODE, redirect_uri: REDIRECT },
    expected: { error: InvalidRequestError, code: 'invalid_request', description: 'The code_verifier parameter is required', calls: [] },
  },
  {
    name: 'an oversized code → invalid_request, never looked up',
    given: { codes: { [CODE]: storedCode() } },
    request: exchange({ code: 'c'.repeat(513) }),
    expected: { error: InvalidRequestError, code: 'invalid_request', description: 'The code parameter is too long', calls: [] },
  },
  {
    name: 'a repeated parameter → invalid_request (§3.2: parameters MUST NOT be included more than once)',
    given: { codes: { [CODE]: storedCode() } },
    request: exchange({ code: [CODE, CODE] }),
    expected: { error: InvalidRequestError, code: 'invalid_request', description: 'The code parameter is repeated', calls: [] },
  },
  {
    name: 'a code_verifier outside 43*128unreserved → invalid_request (RFC 7636 §4.1)',
    given: { codes: { [CODE]: storedCode() } },
    request: exchange({ code_verifier: 'v'.repeat(42) }),
    expected: {
      error: InvalidRequestError,
      code: 'invalid_request',
      description: 'code_verifier must be 43 to 128 characters of [A-Za-z0-9-._~]',
      calls: [],
    },
  },
  {
    name: 'a client not registered for authorization_code → unauthorized_client, code left unused',
    given: { codes: { [CODE]: storedCode() }, client: { grantTypes: ['refresh_token'] } },
    request: exchange(),
    expected: {
      error: UnauthorizedClientError,
      code: 'unauthorized_client',
      description: 'This client is not registered for the authorization_code grant',
      calls: [],
    },
  },
  {
    name: 'a resource this server does not serve → invalid_target (RFC 8707 §2), code left unused',
    given: { codes: { [CODE]: storedCode() } },
    request: exchange({ resource: 'https://elsewhere.example/api' }),
    expected: {
      error: InvalidTargetError,
      code: 'invalid_target',
      description: `Unknown resource; this server issues tokens for ${ISSUER}`,
      calls: [],
    },
  },
  {
    name: 'eleven resource parameters → invalid_request before any of them is resolved, code left unused',
    given: { codes: { [CODE]: storedCode() } },
    request: exchange({ resource: Array.from({ length: 11 }, () => `${ISSUER}/mcp`) }),
    expected: { error: InvalidRequestError, code: 'invalid_request', description: 'Too many resource parameters', calls: [] },
  },
  {
    name: 'a resource over 2000 characters → invalid_request, as before, code left unused',
    given: { codes: { [CODE]: storedCode() } },
    request: exchange({ resource: `${ISSUER}/${'a'.repeat(2000)}` }),
    expected: { error: InvalidRequestError, code: 'invalid_request', description: 'The resource parameter is malformed', calls: [] },
  },
  {
    name: 'an unknown code → invalid_grant, nothing revoked, counted as guessing',
    given: { codes: {} },
    request: exchange(),
    expected: { error: UnmatchedGrantError, code: 'invalid_grant', description: INVALID, calls: ['consumeCodeAndIssue', 'findCodeClientByHash'] },
  },
  {
    name: "another client's code → invalid_grant, the owner's grant is not revoked (§4.1.3), counted as guessing",
    given: { codes: { [CODE]: storedCode({ clientId: 'client-b' }) } },
    request: exchange(),
    expected: { error: UnmatchedGrantError, code: 'invalid_grant', description: INVALID, calls: ['consumeCodeAndIssue', 'findCodeClientByHash'] },
  },
  {
    name: 'a code used twice → invalid_grant and the grant is revoked (§4.1.2, RFC 9700 §4.5)',
    given: { codes: { [CODE]: storedCode() } },
    before: exchange(),
    request: exchange(),
    expected: {
      error: InvalidGrantError,
      code: 'invalid_grant',
      description: INVALID,
      detail: 'code replay',
      calls: ['consumeCodeAndIssue', 'findCodeClientByHash', 'revokeGrant grant-1 code_replay'],
    },
  },
  {
    name: 'an expired code → invalid_grant, never issues',
    given: { codes: { [CODE]: storedCode({ expiresAt: new Date(Date.now() - 1000) }) } },
    request: exchange(),
    expected: { error: InvalidGrantError, code: 'invalid_grant', description: INVALID, detail: 'expired or revoked', calls: ['consumeCodeAndIssue'] },
  },
  {
    name: 'a code of a revoked grant → invalid_grant, never issues',
    given: { codes: { [CODE]: storedCode({ grantRevokedAt: new Date(Date.now() - 1000) }) } },
    request: exchange(),
    expected: { error: InvalidGrantError, code: 'invalid_grant', description: INVALID, detail: 'expired or revoked', calls: ['consumeCodeAndIssue'] },
  },
  {
    name: 'a redirect_uri not identical to the authorization request’s → invalid_grant (§4.1.3), counted as guessing',
    given: { codes: { [CODE]: storedCode() } },
    request: exchange({ redirect_uri: `${REDIRECT}/` }),
    expected: {
      error: UnmatchedGrantError,
      code: 'invalid_grant',
      description: 'redirect_uri does not match the one of the authorization request',
      calls: ['consumeCodeAndIssue'],
    },
  },
  {
    name: 'a code_verifier that does not match the code_challenge → invalid_grant (RFC 7636 §4.6), counted as guessing',
    given: { codes: { [CODE]: storedCode() } },
    request: exchange({ code_verifier: 'w'.repeat(43) }),
    expected: {
      error: UnmatchedGrantError,
      code: 'invalid_grant',
      description: 'PKCE verification failed: code_verifier does not match the code_challenge',
      calls: ['consumeCodeAndIssue'],
    },
  },
];

describe('AuthorizationCodeGrant (RFC 6749 §4.1.3, RFC 7636, RFC 8707)', () => {
  it.each(cases)('$name', async ({ given, request, before, expected }) => {
    const { grant, calls } = setup(given.codes);
    const registered = client(given.client);
    if (before) await grant.handle(registered, FormParams.from(before));
    calls.length = 0;

    const outcome = grant.handle(registered, FormParams.from(request));

    if ('error' in expected) {
      await expectOAuthError(outcome, expected);
      // A known code used again, too late or in a revoked grant is ordinary, not guessing.
      if (expected.error === InvalidGrantError) expect(await outcome.catch((error: unknown) => error)).not.toBeInstanceOf(UnmatchedGrantError);
    } else {
      const response = await outcome;
      expectTokenResponse(response, expected.response.scope);
      expect('refresh_token' in response).toBe(expected.response.refreshToken);
      expect(response.id_token).toBe(expected.response.idToken ? 'signed-id-token' : undefined);
    }
    expect(calls).toEqual(expected.calls);
  });
});
