import { InvalidGrantError, InvalidRequestError, InvalidTargetError, UnauthorizedClientError } from '@platform/oauth-errors';
import { MemoryRateLimitStore } from '@platform/rate-limits';
import type { RegisteredClient } from '../../clients/clients.repository';
import { loadLimitsConfig } from '../../config/limits-config';
import { hashToken } from '../../crypto/tokens';
import { FormParams } from '../../http/form-params';
import { type ExpectedOAuthError, expectOAuthError, expectTokenResponse, grantConfig, HOUR, ISSUER, recordingRevoker, registeredClient, tokenIssuerOver } from '../../../test/support/unit-fixtures';
import { Clock } from '../../common/clock';
import { TokenEndpointLimits } from '../token-endpoint-limits';
import { TokenEndpointMetrics } from '../token-endpoint-metrics';
import type { IssuedGrant, NewTokens } from '../token-rows';
import { AuthorizationCodeGrant } from './authorization-code.grant';
import type { AuthorizationCodeStorage, CodeExchange, ConsumedCode } from './authorization-code.storage';
import { challengeOf } from './pkce';
import { UnmatchedGrantError } from './unmatched-grant.error';

/**
 * Table-driven unit spec (fosite flow_authorize_code_token_test.go style): each case says what
 * the storage answers (AuthorizationCodeStorage: what consuming the code gave, whose the code
 * is), the token request, and the exact error or response plus the storage calls. Whether a code
 * is consumed and tokens stored is the storage's to decide, and test/token-store proves it on a
 * real database; here the grant's reading of those answers is what is tested. TokenIssuer is the
 * real class (pure) over a double of the key service (test/support/unit-fixtures.ts).
 */

/** The request as its security events name it (the client address, the request id). */
const ORIGIN = { address: '198.51.100.7', requestId: 'request-1' };
const config = { ...grantConfig(), limits: loadLimitsConfig({}) };

const CODE = 'code-abcdefghijklmnopqrstuvwxyz';
const VERIFIER = 'v'.repeat(43);
const REDIRECT = 'http://127.0.0.1:8765/callback';

function client(overrides: Partial<RegisteredClient> = {}): RegisteredClient {
  return registeredClient({ id: 'client-a', name: 'A', redirectUris: [REDIRECT], scope: 'openid courses:read', ...overrides });
}

function issuedGrant(scope = 'courses:read'): IssuedGrant {
  return {
    grantId: 'grant-1',
    clientId: 'client-a',
    userId: 'user-1',
    schoolId: 'school-1',
    resource: ISSUER,
    nonce: 'n-1',
    authTime: new Date('2026-11-23T12:00:00Z'),
    accessScope: scope,
  };
}

/** The code consumed by this request: as stored, and the tokens stored with it (null: the checks failed). */
function consumed(overrides: Partial<ConsumedCode> = {}): ConsumedCode {
  return {
    expiresAt: new Date(Date.now() + HOUR),
    redirectUri: REDIRECT,
    codeChallenge: challengeOf(VERIFIER),
    grantRevokedAt: null,
    issued: null,
    ...overrides,
  };
}

/** What the storage answers: consumeCode's result (null: nothing consumed) and the code's owner. */
interface StorageAnswers {
  consumed: ConsumedCode | null;
  owner?: { clientId: string; grantId: string; consumed?: boolean; dpopJkt?: string | null } | null;
}

function setup(answers: StorageAnswers) {
  const calls: string[] = [];
  const exchanges: Array<{ exchange: CodeExchange; tokens: NewTokens }> = [];
  const storage: AuthorizationCodeStorage = {
    async consumeCode(exchange, tokens) {
      calls.push('consumeCode');
      exchanges.push({ exchange, tokens });
      return answers.consumed;
    },
    async findCodeOwner(codeHash) {
      calls.push(`findCodeOwner${codeHash === hashToken(CODE) ? '' : ' of another code'}`);
      // A code the storage did not consume but knows was consumed before (a replay), unless told otherwise.
      return answers.owner ? { consumed: true, dpopJkt: null, ...answers.owner } : null;
    },
  };
  const limits = new TokenEndpointLimits(new MemoryRateLimitStore(), config, new TokenEndpointMetrics());
  const grant = new AuthorizationCodeGrant(config, storage, tokenIssuerOver(config), recordingRevoker(calls), limits, new Clock());
  return { grant, calls, exchanges };
}

interface Case {
  name: string;
  given: StorageAnswers & { client?: Partial<RegisteredClient>; dpopJkt?: string };
  request: Record<string, string | string[]>;
  expected: (ExpectedOAuthError & { calls: string[] }) | { response: { scope: string; refreshToken: boolean; idToken: boolean }; calls: string[] };
}

const exchange = (overrides: Record<string, string | string[]> = {}) => ({
  code: CODE,
  redirect_uri: REDIRECT,
  code_verifier: VERIFIER,
  ...overrides,
});
const INVALID = 'The authorization code is invalid, expired or already used';
const BOUND_CODE = 'The authorization code is bound to a DPoP key (dpop_jkt): send a DPoP proof signed with that key';
const JKT = 'a'.repeat(43);
const OTHER_JKT = 'b'.repeat(43);
/** The storage consumes the code and stores the tokens. */
const ISSUES = (scope = 'courses:read'): StorageAnswers => ({ consumed: consumed({ issued: issuedGrant(scope) }) });
/** A request refused before storage is asked: whatever it would answer. */
const UNASKED: StorageAnswers = ISSUES();

const cases: Case[] = [
  {
    name: 'a valid code, verifier and redirect_uri issue an access and a refresh token',
    given: ISSUES(),
    request: exchange(),
    expected: { response: { scope: 'courses:read', refreshToken: true, idToken: false }, calls: ['consumeCode'] },
  },
  {
    name: 'openid in the grant adds an ID token (OIDC Core §3.1.3.3)',
    given: ISSUES('openid courses:read'),
    request: exchange(),
    expected: { response: { scope: 'openid courses:read', refreshToken: true, idToken: true }, calls: ['consumeCode'] },
  },
  {
    name: 'a client not registered for refresh_token gets no refresh token',
    given: { ...ISSUES(), client: { grantTypes: ['authorization_code'] } },
    request: exchange(),
    expected: { response: { scope: 'courses:read', refreshToken: false, idToken: false }, calls: ['consumeCode'] },
  },
  {
    name: 'a resource this server serves (RFC 8707, /mcp spelling) is accepted',
    given: ISSUES(),
    request: exchange({ resource: `${ISSUER}/mcp` }),
    expected: { response: { scope: 'courses:read', refreshToken: true, idToken: false }, calls: ['consumeCode'] },
  },
  {
    name: 'missing code → invalid_request, storage untouched',
    given: UNASKED,
    request: { redirect_uri: REDIRECT, code_verifier: VERIFIER },
    expected: { error: InvalidRequestError, code: 'invalid_request', description: 'The code parameter is required', calls: [] },
  },
  {
    name: 'missing redirect_uri → invalid_request (§4.1.3: required when sent in the authorization request)',
    given: UNASKED,
    request: { code: CODE, code_verifier: VERIFIER },
    expected: { error: InvalidRequestError, code: 'invalid_request', description: 'The redirect_uri parameter is required', calls: [] },
  },
  {
    name: 'missing code_verifier → invalid_request (RFC 7636 §4.5: PKCE is required)',
    given: UNASKED,
    request: { code: CODE, redirect_uri: REDIRECT },
    expected: { error: InvalidRequestError, code: 'invalid_request', description: 'The code_verifier parameter is required', calls: [] },
  },
  {
    name: 'an oversized code → invalid_request, never looked up',
    given: UNASKED,
    request: exchange({ code: 'c'.repeat(513) }),
    expected: { error: InvalidRequestError, code: 'invalid_request', description: 'The code parameter is too long', calls: [] },
  },
  {
    name: 'a repeated parameter → invalid_request (§3.2: parameters MUST NOT be included more than once)',
    given: UNASKED,
    request: exchange({ code: [CODE, CODE] }),
    expected: { error: InvalidRequestError, code: 'invalid_request', description: 'The code parameter is repeated', calls: [] },
  },
  {
    name: 'a code_verifier outside 43*128unreserved → invalid_request (RFC 7636 §4.1)',
    given: UNASKED,
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
    given: { ...UNASKED, client: { grantTypes: ['refresh_token'] } },
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
    given: UNASKED,
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
    given: UNASKED,
    request: exchange({ resource: Array.from({ length: 11 }, () => `${ISSUER}/mcp`) }),
    expected: { error: InvalidRequestError, code: 'invalid_request', description: 'Too many resource parameters', calls: [] },
  },
  {
    name: 'a resource over 2000 characters → invalid_request, as before, code left unused',
    given: UNASKED,
    request: exchange({ resource: `${ISSUER}/${'a'.repeat(2000)}` }),
    expected: { error: InvalidRequestError, code: 'invalid_request', description: 'The resource parameter is malformed', calls: [] },
  },
  {
    name: 'an unknown code → invalid_grant, nothing revoked, counted as guessing',
    given: { consumed: null, owner: null },
    request: exchange(),
    expected: { error: UnmatchedGrantError, code: 'invalid_grant', description: INVALID, calls: ['consumeCode', 'findCodeOwner'] },
  },
  {
    name: "another client's code → invalid_grant, the owner's grant is not revoked (§4.1.3), counted as guessing",
    given: { consumed: null, owner: { clientId: 'client-b', grantId: 'grant-of-b' } },
    request: exchange(),
    expected: { error: UnmatchedGrantError, code: 'invalid_grant', description: INVALID, calls: ['consumeCode', 'findCodeOwner'] },
  },
  {
    name: 'a code used before → invalid_grant and the grant is revoked (§4.1.2, RFC 9700 §4.5)',
    given: { consumed: null, owner: { clientId: 'client-a', grantId: 'grant-1' } },
    request: exchange(),
    expected: {
      error: InvalidGrantError,
      code: 'invalid_grant',
      description: INVALID,
      detail: 'code replay',
      calls: ['consumeCode', 'findCodeOwner', 'revokeGrant grant-1 code_replay'],
    },
  },
  {
    name: 'a code bound with dpop_jkt and no proof → invalid_grant; nothing consumed, nothing revoked (RFC 9449 §10)',
    given: { consumed: null, owner: { clientId: 'client-a', grantId: 'grant-1', consumed: false, dpopJkt: JKT } },
    request: exchange(),
    expected: { error: InvalidGrantError, code: 'invalid_grant', description: BOUND_CODE, detail: 'dpop_jkt without a proof', calls: ['consumeCode', 'findCodeOwner'] },
  },
  {
    name: 'a code bound with dpop_jkt and a proof by another key → invalid_grant; nothing consumed, nothing revoked',
    given: { consumed: null, owner: { clientId: 'client-a', grantId: 'grant-1', consumed: false, dpopJkt: JKT }, dpopJkt: OTHER_JKT },
    request: exchange(),
    expected: { error: InvalidGrantError, code: 'invalid_grant', description: BOUND_CODE, detail: 'dpop_jkt of another key', calls: ['consumeCode', 'findCodeOwner'] },
  },
  {
    name: 'a bound code used before, replayed with its key → the replay revokes the grant as any other',
    given: { consumed: null, owner: { clientId: 'client-a', grantId: 'grant-1', consumed: true, dpopJkt: JKT }, dpopJkt: JKT },
    request: exchange(),
    expected: { error: InvalidGrantError, code: 'invalid_grant', description: INVALID, detail: 'code replay', calls: ['consumeCode', 'findCodeOwner', 'revokeGrant grant-1 code_replay'] },
  },
  {
    name: 'an expired code → invalid_grant, never issues',
    given: { consumed: consumed({ expiresAt: new Date(Date.now() - 1000) }) },
    request: exchange(),
    expected: { error: InvalidGrantError, code: 'invalid_grant', description: INVALID, detail: 'expired or revoked', calls: ['consumeCode'] },
  },
  {
    name: 'a code of a revoked grant → invalid_grant, never issues',
    given: { consumed: consumed({ grantRevokedAt: new Date(Date.now() - 1000) }) },
    request: exchange(),
    expected: { error: InvalidGrantError, code: 'invalid_grant', description: INVALID, detail: 'expired or revoked', calls: ['consumeCode'] },
  },
  {
    name: 'a redirect_uri not identical to the authorization request’s → invalid_grant (§4.1.3), counted as guessing',
    given: { consumed: consumed() },
    request: exchange({ redirect_uri: `${REDIRECT}/` }),
    expected: {
      error: UnmatchedGrantError,
      code: 'invalid_grant',
      description: 'redirect_uri does not match the one of the authorization request',
      calls: ['consumeCode'],
    },
  },
  {
    name: 'a code_verifier that does not match the code_challenge → invalid_grant (RFC 7636 §4.6), counted as guessing',
    given: { consumed: consumed() },
    request: exchange({ code_verifier: 'w'.repeat(43) }),
    expected: {
      error: UnmatchedGrantError,
      code: 'invalid_grant',
      description: 'PKCE verification failed: code_verifier does not match the code_challenge',
      calls: ['consumeCode'],
    },
  },
];

describe('AuthorizationCodeGrant (RFC 6749 §4.1.3, RFC 7636, RFC 8707)', () => {
  it.each(cases)('$name', async ({ given, request, expected }) => {
    const { grant, calls } = setup(given);
    const registered = client(given.client);

    const outcome = grant.handle(registered, FormParams.from(request), { address: '198.51.100.7', dpopJkt: given.dpopJkt ?? null, origin: ORIGIN });

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

  it('presents the code’s hash, the client, the redirect_uri and the verifier’s S256 challenge, and stores only the hashes of the tokens it answers', async () => {
    const { grant, exchanges } = setup(ISSUES());
    const response = await grant.handle(client(), FormParams.from(exchange()), { address: '198.51.100.7', dpopJkt: null, origin: ORIGIN });
    expect(exchanges.map(({ exchange }) => exchange)).toEqual([
      { codeHash: hashToken(CODE), clientId: 'client-a', redirectUri: REDIRECT, codeChallenge: challengeOf(VERIFIER), dpopJkt: null },
    ]);
    const tokens = exchanges[0]?.tokens;
    expect(tokens?.access.tokenHash).toBe(hashToken(response.access_token));
    expect(tokens?.refresh?.tokenHash).toBe(hashToken(response.refresh_token as string));
  });
});

describe('AuthorizationCodeGrant with a DPoP proof (RFC 9449 §5)', () => {
  it.each([
    ['a public client: the access and the refresh token are bound to the proof’s key', 'none' as const, [JKT, JKT]],
    ['a confidential client: the access token only', 'client_secret_basic' as const, [JKT, null]],
  ])('%s; token_type DPoP; the key goes to the single-use step', async (_name, tokenEndpointAuthMethod, bound) => {
    const { grant, exchanges } = setup(ISSUES());
    const response = await grant.handle(client({ tokenEndpointAuthMethod }), FormParams.from(exchange()), { address: '198.51.100.7', dpopJkt: JKT, origin: ORIGIN });
    expect(response.token_type).toBe('DPoP');
    expect(exchanges.map(({ exchange, tokens }) => [exchange.dpopJkt, tokens.access.dpopJkt, tokens.refresh?.dpopJkt])).toEqual([[JKT, ...bound]]);
  });

  it('without a proof: Bearer, nothing bound', async () => {
    const { grant, exchanges } = setup(ISSUES());
    const response = await grant.handle(client(), FormParams.from(exchange()), { address: '198.51.100.7', dpopJkt: null, origin: ORIGIN });
    expect(response.token_type).toBe('Bearer');
    expect(exchanges.map(({ tokens }) => [tokens.access.dpopJkt, tokens.refresh?.dpopJkt])).toEqual([[null, null]]);
  });
});
