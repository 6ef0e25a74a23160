import { InvalidGrantError, InvalidRequestError, InvalidScopeError, InvalidTargetError, TooManyRequestsError, UnauthorizedClientError } from '@platform/oauth-errors';
import { MemoryRateLimitStore } from '@platform/rate-limits';
import type { RegisteredClient } from '../../clients/clients.repository';
import type { AuthConfig } from '../../config/auth-config';
import { loadLimitsConfig } from '../../config/limits-config';
import { hashToken } from '../../crypto/tokens';
import { FormParams } from '../../http/form-params';
import { type ExpectedOAuthError, expectOAuthError, expectTokenResponse, grantConfig, HOUR, ISSUER, OPAQUE_TOKEN, recordingRevoker, registeredClient, tokenIssuerOver } from '../../../test/support/unit-fixtures';
import { Clock } from '../../common/clock';
import { rotationAddressTag } from '../rotation-address';
import { TokenEndpointLimits } from '../token-endpoint-limits';
import { TokenEndpointMetrics } from '../token-endpoint-metrics';
import type { IssuedGrant, NewTokens, RefreshTokenRow } from '../token-rows';
import { RefreshTokenGrant } from './refresh-token.grant';
import type { PresentedRefreshToken, RefreshTokenStorage } from './refresh-token.storage';
import type { IssuingRequest } from '../../security-events/token-issued-event';
import { UnmatchedGrantError } from './unmatched-grant.error';

/**
 * Table-driven unit spec (fosite flow_refresh_test.go style): each case says what the storage
 * answers (RefreshTokenStorage: whether the rotation stored a successor, the token's committed
 * state, whether the grant still takes a sibling pair), the token request, and the exact error or
 * response plus the storage calls made. Whether a token rotates is the storage's to decide, and
 * test/token-store proves it (its races included) on a real database; here the grant's reading of
 * those answers is what is tested. TokenIssuer is the real class over a double of the key
 * service (test/support/unit-fixtures.ts).
 */

const GRACE_SECONDS = 30;

function configWith(env: Record<string, string> = {}): AuthConfig {
  return { ...grantConfig(GRACE_SECONDS), limits: loadLimitsConfig(env) };
}
const config = configWith();

const TOKEN = 'refresh-abcdefghijklmnopqrstuvwxyz';
/** A token of a family (refresh-family.ts): 12 characters of family id, then 43. */
const FAMILY = 'FamilyId-abc';
const FAMILY_TOKEN = `${FAMILY}${'f'.repeat(43)}`;
/** The caller's address bucket, and another one. */
const ADDRESS = '198.51.100.7';
const ELSEWHERE = '203.0.113.9';
/** The request as its security events name it (the client address, the request id). */
const ORIGIN = { address: '198.51.100.7', requestId: 'request-1' };
/** What the rotation keeps of ADDRESS for TOKEN. */
const ROTATED_HERE = rotationAddressTag(hashToken(TOKEN), ADDRESS);
const secondsAgo = (seconds: number) => new Date(Date.now() - seconds * 1000);
const FULL = 'courses:read courses:write';
const JKT = 'a'.repeat(43);
const OTHER_JKT = 'b'.repeat(43);

function client(overrides: Partial<RegisteredClient> = {}): RegisteredClient {
  return registeredClient({ id: 'client-a', name: 'A', scope: FULL, ...overrides });
}

/** The presented token's committed state, as findRefreshToken answers it. */
function storedToken(overrides: Partial<RefreshTokenRow> = {}, grantRevokedAt: Date | null = null): RefreshTokenRow {
  return {
    id: 'rt-1',
    tokenHash: hashToken(TOKEN),
    grantId: 'grant-1',
    clientId: 'client-a',
    scope: FULL,
    issuedAt: secondsAgo(600),
    expiresAt: new Date(Date.now() + HOUR),
    rotatedAt: null,
    revokedAt: null,
    dpopJkt: null,
    grant: { revokedAt: grantRevokedAt, userId: 'user-1', schoolId: 'school-1', resource: ISSUER },
    ...overrides,
  };
}

function issuedGrant(accessScope: string): IssuedGrant {
  return { grantId: 'grant-1', clientId: 'client-a', userId: 'user-1', schoolId: 'school-1', resource: ISSUER, nonce: null, authTime: secondsAgo(600), accessScope };
}

/**
 * What the storage answers. `rotates`: the rotation stores a successor pair (its access token
 * with the requested scope, else the token's); `stored`: the token's committed state (null:
 * unknown); `grantAlive`: whether a sibling pair can still be stored in the grant.
 */
interface StorageAnswers {
  rotates: boolean;
  stored: RefreshTokenRow | null;
  grantAlive?: boolean;
}

const ROTATES: StorageAnswers = { rotates: true, stored: storedToken() };
/** Nothing rotates; the token's committed state says why. */
const STATE = (stored: RefreshTokenRow | null, grantAlive = true): StorageAnswers => ({ rotates: false, stored, grantAlive });

function setup(answers: StorageAnswers, grantConfiguration = config) {
  const calls: string[] = [];
  const presented: PresentedRefreshToken[] = [];
  /** The new tokens each storage step was asked to store. */
  const stored: NewTokens[] = [];
  /** The issuing requests each storage step was given (their auth.token.issued events). */
  const requests: IssuingRequest[] = [];
  const storage: RefreshTokenStorage = {
    async rotateRefreshToken(token, tokens, request) {
      calls.push(`rotate ${token.requested ? token.requested.scope : 'null'}`);
      requests.push(request);
      presented.push(token);
      stored.push(tokens);
      return answers.rotates ? issuedGrant(token.requested?.scope ?? answers.stored?.scope ?? FULL) : null;
    },
    async findRefreshToken() {
      calls.push('findRefreshToken');
      return answers.stored;
    },
    async issueInGrant(grantId, scopes, tokens, request) {
      requests.push(request);
      stored.push(tokens);
      calls.push(`issueInGrant ${grantId} refresh:${scopes.refresh} access:${scopes.access}`);
      return answers.grantAlive === false ? null : issuedGrant(scopes.access);
    },
  };
  const metrics = new TokenEndpointMetrics();
  const limits = new TokenEndpointLimits(new MemoryRateLimitStore(), grantConfiguration, metrics);
  const revoker = recordingRevoker(calls);
  const grant = new RefreshTokenGrant(grantConfiguration, storage, tokenIssuerOver(grantConfiguration), revoker, limits, metrics, new Clock());
  return { grant, calls, presented, stored, requests, revoker };
}

interface Case {
  name: string;
  given: StorageAnswers & { client?: Partial<RegisteredClient>; env?: Record<string, string>; address?: string; dpopJkt?: string };
  request: Record<string, string | string[]>;
  expected: (ExpectedOAuthError & { calls: string[] }) | { response: { scope: string }; calls: string[] };
}

const INVALID = 'The refresh token is invalid, expired or revoked';
const ROTATE = 'rotate null';

const cases: Case[] = [
  {
    name: 'a current token rotates; the new access token has the grant’s scope',
    given: ROTATES,
    request: { refresh_token: TOKEN },
    expected: { response: { scope: FULL }, calls: [ROTATE] },
  },
  {
    name: 'a narrower scope narrows the access token (§6)',
    given: ROTATES,
    request: { refresh_token: TOKEN, scope: 'courses:read' },
    expected: { response: { scope: 'courses:read' }, calls: ['rotate courses:read'] },
  },
  {
    name: 'a resource this server serves (RFC 8707) rotates',
    given: ROTATES,
    request: { refresh_token: TOKEN, resource: `${ISSUER}/api/v1` },
    expected: { response: { scope: FULL }, calls: [ROTATE] },
  },
  {
    name: 'missing refresh_token → invalid_request, storage untouched',
    given: ROTATES,
    request: {},
    expected: { error: InvalidRequestError, code: 'invalid_request', description: 'The refresh_token parameter is required', calls: [] },
  },
  {
    name: 'an oversized refresh_token → invalid_request, never looked up',
    given: ROTATES,
    request: { refresh_token: 'r'.repeat(513) },
    expected: { error: InvalidRequestError, code: 'invalid_request', description: 'The refresh_token parameter is too long', calls: [] },
  },
  {
    name: 'an oversized scope → invalid_request',
    given: ROTATES,
    request: { refresh_token: TOKEN, scope: 's'.repeat(2001) },
    expected: { error: InvalidRequestError, code: 'invalid_request', description: 'The scope parameter is too long', calls: [] },
  },
  {
    name: 'a client not registered for refresh_token → unauthorized_client, token untouched',
    given: { ...ROTATES, client: { grantTypes: ['authorization_code'] } },
    request: { refresh_token: TOKEN },
    expected: {
      error: UnauthorizedClientError,
      code: 'unauthorized_client',
      description: 'This client is not registered for the refresh_token grant',
      calls: [],
    },
  },
  {
    name: 'a scope beyond the original grant (nothing rotated) → invalid_scope, never issues (§6 MUST NOT)',
    given: STATE(storedToken({ scope: 'courses:read' })),
    request: { refresh_token: TOKEN, scope: 'courses:read courses:write' },
    expected: {
      error: InvalidScopeError,
      code: 'invalid_scope',
      description: 'The requested scope exceeds the grant: courses:write',
      calls: ['rotate courses:read courses:write', 'findRefreshToken'],
    },
  },
  {
    name: 'an empty scope → invalid_scope, never rotates',
    given: STATE(storedToken()),
    request: { refresh_token: TOKEN, scope: ' ' },
    expected: { error: InvalidScopeError, code: 'invalid_scope', description: 'The requested scope is empty', calls: ['findRefreshToken'] },
  },
  {
    name: 'a resource this server does not serve → invalid_target (RFC 8707 §2), never rotates',
    given: STATE(storedToken()),
    request: { refresh_token: TOKEN, resource: 'https://elsewhere.example/' },
    expected: {
      error: InvalidTargetError,
      code: 'invalid_target',
      description: `Unknown resource; this server issues tokens for ${ISSUER}`,
      calls: ['findRefreshToken'],
    },
  },
  {
    name: 'eleven resource parameters → invalid_request, never rotates',
    given: ROTATES,
    request: { refresh_token: TOKEN, resource: Array.from({ length: 11 }, () => `${ISSUER}/mcp`) },
    expected: { error: InvalidRequestError, code: 'invalid_request', description: 'Too many resource parameters', calls: [] },
  },
  {
    name: 'an unknown refresh token → invalid_grant, counted as guessing (UnmatchedGrantError)',
    given: STATE(null),
    request: { refresh_token: TOKEN },
    expected: { error: UnmatchedGrantError, code: 'invalid_grant', description: INVALID, calls: [ROTATE, 'findRefreshToken'] },
  },
  {
    name: 'a refresh token of another client → invalid_grant (§6), counted as guessing',
    given: STATE(storedToken({ clientId: 'client-b' })),
    request: { refresh_token: TOKEN },
    expected: { error: UnmatchedGrantError, code: 'invalid_grant', description: INVALID, calls: [ROTATE, 'findRefreshToken'] },
  },
  {
    name: "another client's token rotated long ago → invalid_grant, its grant NOT revoked",
    given: STATE(storedToken({ clientId: 'client-b', rotatedAt: secondsAgo(3600), rotationAddressTag: ROTATED_HERE })),
    request: { refresh_token: TOKEN },
    expected: { error: UnmatchedGrantError, code: 'invalid_grant', description: INVALID, calls: [ROTATE, 'findRefreshToken'] },
  },
  {
    name: 'a revoked refresh token → invalid_grant',
    given: STATE(storedToken({ revokedAt: secondsAgo(10) })),
    request: { refresh_token: TOKEN },
    expected: { error: InvalidGrantError, code: 'invalid_grant', description: INVALID, detail: 'revoked', calls: [ROTATE, 'findRefreshToken'] },
  },
  {
    name: 'a refresh token of a revoked grant → invalid_grant, even inside the reuse window',
    given: STATE(storedToken({ rotatedAt: secondsAgo(1) }, secondsAgo(1))),
    request: { refresh_token: TOKEN },
    expected: { error: InvalidGrantError, code: 'invalid_grant', description: INVALID, detail: 'revoked', calls: [ROTATE, 'findRefreshToken'] },
  },
  {
    name: 'an expired refresh token → invalid_grant, grant left alone',
    given: STATE(storedToken({ expiresAt: secondsAgo(1) })),
    request: { refresh_token: TOKEN },
    expected: { error: InvalidGrantError, code: 'invalid_grant', description: INVALID, detail: 'expired or revoked', calls: [ROTATE, 'findRefreshToken'] },
  },
  {
    name: 'still current after a rotation that stored nothing (another request rotated it meanwhile, then …) → invalid_grant, the client may try again',
    given: STATE(storedToken()),
    request: { refresh_token: TOKEN },
    expected: { error: InvalidGrantError, code: 'invalid_grant', description: INVALID, detail: 'not rotated', calls: [ROTATE, 'findRefreshToken'] },
  },
  {
    name: 'rotated within the reuse window → a sibling pair of the same grant, grant alive',
    given: STATE(storedToken({ rotatedAt: secondsAgo(2) })),
    request: { refresh_token: TOKEN },
    expected: { response: { scope: FULL }, calls: [ROTATE, 'findRefreshToken', `issueInGrant grant-1 refresh:${FULL} access:${FULL}`] },
  },
  {
    name: 'within the window with a narrower scope: the sibling refresh token keeps the grant’s scope (§6 "identical")',
    given: STATE(storedToken({ rotatedAt: secondsAgo(2) })),
    request: { refresh_token: TOKEN, scope: 'courses:read' },
    expected: {
      response: { scope: 'courses:read' },
      calls: ['rotate courses:read', 'findRefreshToken', `issueInGrant grant-1 refresh:${FULL} access:courses:read`],
    },
  },
  {
    name: 'within the window, a scope beyond the grant → invalid_scope, no sibling',
    given: STATE(storedToken({ scope: 'courses:read', rotatedAt: secondsAgo(2) })),
    request: { refresh_token: TOKEN, scope: 'courses:write' },
    expected: {
      error: InvalidScopeError,
      code: 'invalid_scope',
      description: 'The requested scope exceeds the grant: courses:write',
      calls: ['rotate courses:write', 'findRefreshToken'],
    },
  },
  {
    name: 'within the window, grant revoked between the read and the issuance → invalid_grant',
    given: STATE(storedToken({ rotatedAt: secondsAgo(2) }), false),
    request: { refresh_token: TOKEN },
    expected: {
      error: InvalidGrantError,
      code: 'invalid_grant',
      description: INVALID,
      detail: 'grant revoked meanwhile',
      calls: [ROTATE, 'findRefreshToken', `issueInGrant grant-1 refresh:${FULL} access:${FULL}`],
    },
  },
  {
    name: 'rotated after the reuse window, no address kept (rotated before it was) → invalid_grant and the whole grant is revoked (RFC 9700 §4.14.2)',
    given: STATE(storedToken({ rotatedAt: secondsAgo(GRACE_SECONDS + 5) })),
    request: { refresh_token: TOKEN },
    expected: {
      error: InvalidGrantError,
      code: 'invalid_grant',
      description: INVALID,
      detail: 'refresh token reuse',
      calls: [ROTATE, 'findRefreshToken', 'revokeGrant grant-1 refresh_token_reuse'],
    },
  },
  {
    name: 'rotated out 2 h ago from another address → reuse: the whole grant is revoked',
    given: { ...STATE(storedToken({ rotatedAt: secondsAgo(7200), rotationAddressTag: ROTATED_HERE })), address: ELSEWHERE },
    request: { refresh_token: TOKEN },
    expected: {
      error: InvalidGrantError,
      code: 'invalid_grant',
      description: INVALID,
      detail: 'refresh token reuse',
      calls: [ROTATE, 'findRefreshToken', 'revokeGrant grant-1 refresh_token_reuse'],
    },
  },
  {
    name: 'a DPoP-bound token without a proof: invalid_grant before the reuse rules, nothing revoked (RFC 9449 §5)',
    given: STATE(storedToken({ dpopJkt: JKT, rotatedAt: secondsAgo(7200) })),
    request: { refresh_token: TOKEN },
    expected: {
      error: InvalidGrantError,
      code: 'invalid_grant',
      description: 'The refresh token is bound to a DPoP key: send a DPoP proof signed with that key',
      detail: 'bound refresh token without a proof',
      calls: [ROTATE, 'findRefreshToken'],
    },
  },
  {
    name: 'a DPoP-bound token rotated out 2 h ago, presented with another key elsewhere: refused, the grant kept',
    given: { ...STATE(storedToken({ dpopJkt: JKT, rotatedAt: secondsAgo(7200), rotationAddressTag: ROTATED_HERE })), address: ELSEWHERE, dpopJkt: OTHER_JKT },
    request: { refresh_token: TOKEN },
    expected: {
      error: InvalidGrantError,
      code: 'invalid_grant',
      description: 'The refresh token is bound to a DPoP key: send a DPoP proof signed with that key',
      detail: 'bound refresh token with another key',
      calls: [ROTATE, 'findRefreshToken'],
    },
  },
  {
    name: 'a DPoP-bound token rotated out 2 h ago, presented with its own key elsewhere: reuse, the grant is revoked',
    given: { ...STATE(storedToken({ dpopJkt: JKT, rotatedAt: secondsAgo(7200), rotationAddressTag: ROTATED_HERE })), address: ELSEWHERE, dpopJkt: JKT },
    request: { refresh_token: TOKEN },
    expected: {
      error: InvalidGrantError,
      code: 'invalid_grant',
      description: INVALID,
      detail: 'refresh token reuse',
      calls: [ROTATE, 'findRefreshToken', 'revokeGrant grant-1 refresh_token_reuse'],
    },
  },
  {
    name: 'rotated out 2 h ago from this same address → a stale session: invalid_grant, the grant kept',
    given: STATE(storedToken({ rotatedAt: secondsAgo(7200), rotationAddressTag: ROTATED_HERE })),
    request: { refresh_token: TOKEN },
    expected: {
      error: InvalidGrantError,
      code: 'invalid_grant',
      description: INVALID,
      detail: 'stale session: rotated out from this address, grant kept',
      calls: [ROTATE, 'findRefreshToken'],
    },
  },
  {
    name: 'REFRESH_STALE_SESSIONS_KEEP_GRANT=false: the same presentation revokes the grant',
    given: { ...STATE(storedToken({ rotatedAt: secondsAgo(7200), rotationAddressTag: ROTATED_HERE })), env: { REFRESH_STALE_SESSIONS_KEEP_GRANT: 'false' } },
    request: { refresh_token: TOKEN },
    expected: {
      error: InvalidGrantError,
      code: 'invalid_grant',
      description: INVALID,
      detail: 'refresh token reuse',
      calls: [ROTATE, 'findRefreshToken', 'revokeGrant grant-1 refresh_token_reuse'],
    },
  },
];

describe('RefreshTokenGrant (RFC 6749 §6, RFC 9700 §4.14.2 rotation with a reuse window, RFC 8707)', () => {
  it.each(cases)('$name', async ({ given, request, expected }) => {
    const { grant, calls } = setup(given, given.env ? configWith(given.env) : config);

    const outcome = grant.handle(client(given.client), FormParams.from(request), { address: given.address ?? ADDRESS, dpopJkt: given.dpopJkt ?? null, origin: ORIGIN });

    if ('error' in expected) {
      await expectOAuthError(outcome, expected);
    } else {
      const response = await outcome;
      expectTokenResponse(response, expected.response.scope);
      expect(response.refresh_token).toMatch(OPAQUE_TOKEN);
      expect(response.refresh_token).not.toBe(TOKEN);
    }
    expect(calls).toEqual(expected.calls);
  });
});

describe('RefreshTokenGrant: the security events it hands to storage', () => {
  it('a rotation and a reuse-window sibling pair name the request as refresh_token issues', async () => {
    const rotation = setup(ROTATES);
    await rotation.grant.handle(client(), FormParams.from({ refresh_token: TOKEN }), { address: ADDRESS, dpopJkt: null, origin: ORIGIN });
    const sibling = setup(STATE(storedToken({ rotatedAt: secondsAgo(2) })));
    await sibling.grant.handle(client(), FormParams.from({ refresh_token: TOKEN }), { address: ADDRESS, dpopJkt: null, origin: ORIGIN });
    expect([...rotation.requests, ...sibling.requests]).toEqual([
      { grantType: 'refresh_token', ...ORIGIN },
      { grantType: 'refresh_token', ...ORIGIN },
      { grantType: 'refresh_token', ...ORIGIN },
    ]);
  });

  it('reuse revokes the grant with its auth.refresh_token.reuse_detected event (the grant, its user and school, the caller’s address)', async () => {
    const { grant, revoker } = setup(STATE(storedToken({ rotatedAt: secondsAgo(7200), rotationAddressTag: ROTATED_HERE })));
    const revokeGrant = jest.spyOn(revoker, 'revokeGrant');
    await expect(grant.handle(client(), FormParams.from({ refresh_token: TOKEN }), { address: ELSEWHERE, dpopJkt: null, origin: ORIGIN })).rejects.toThrow(InvalidGrantError);
    expect(revokeGrant).toHaveBeenCalledWith('grant-1', 'refresh_token_reuse', {
      type: 'auth.refresh_token.reuse_detected',
      schoolId: 'school-1',
      actor: { type: 'client', id: 'client-a' },
      subject: { type: 'grant', id: 'grant-1' },
      clientId: 'client-a',
      address: ORIGIN.address,
      outcome: 'failure',
      data: { grant_ended: true, user_id: 'user-1' },
    });
  });
});

describe('RefreshTokenGrant: what the rotation presents, and the token’s family', () => {
  it('presents the token’s hash, the client and the tag of the caller’s address, and stores only the hashes of the tokens it answers', async () => {
    const { grant, presented } = setup(ROTATES);
    await grant.handle(client(), FormParams.from({ refresh_token: TOKEN, scope: 'courses:read' }), { address: ADDRESS, dpopJkt: null, origin: ORIGIN });
    expect(presented).toEqual([
      { tokenHash: hashToken(TOKEN), clientId: 'client-a', requested: { scopes: ['courses:read'], scope: 'courses:read' }, addressTag: ROTATED_HERE, dpopJkt: null },
    ]);
  });

  it('a token of a family has successors (and siblings) of the same family; a token without one starts one', async () => {
    const successor = await setup(ROTATES).grant.handle(client(), FormParams.from({ refresh_token: FAMILY_TOKEN }), { address: ADDRESS, dpopJkt: null, origin: ORIGIN });
    expect(successor.refresh_token).toMatch(new RegExp(`^${FAMILY}[A-Za-z0-9_-]{43}$`));
    const inWindow = STATE(storedToken({ tokenHash: hashToken(FAMILY_TOKEN), rotatedAt: secondsAgo(2) }));
    const familySibling = await setup(inWindow).grant.handle(client(), FormParams.from({ refresh_token: FAMILY_TOKEN }), { address: ADDRESS, dpopJkt: null, origin: ORIGIN });
    expect(familySibling.refresh_token).toMatch(new RegExp(`^${FAMILY}[A-Za-z0-9_-]{43}$`));
    const sibling = await setup(STATE(storedToken({ rotatedAt: secondsAgo(2) }))).grant.handle(client(), FormParams.from({ refresh_token: TOKEN }), {
      address: ADDRESS,
      dpopJkt: null,
      origin: ORIGIN,
    });
    expect(sibling.refresh_token).toMatch(/^[A-Za-z0-9_-]{55}$/);
    expect(sibling.refresh_token?.startsWith(FAMILY)).toBe(false);
  });
});

describe('RefreshTokenGrant: the per-grant limit (RATE_LIMIT_TOKEN_PER_GRANT)', () => {
  it('counts each success of a family and refuses the next refresh BEFORE anything rotates: the client keeps a working token', async () => {
    const { grant, calls } = setup(ROTATES, configWith({ RATE_LIMIT_TOKEN_PER_GRANT: '2' }));
    let current = FAMILY_TOKEN;
    for (let i = 0; i < 2; i++) {
      current = (await grant.handle(client(), FormParams.from({ refresh_token: current }), { address: ADDRESS, dpopJkt: null, origin: ORIGIN })).refresh_token as string;
    }
    calls.length = 0;
    const refused = await grant.handle(client(), FormParams.from({ refresh_token: current }), { address: ADDRESS, dpopJkt: null, origin: ORIGIN }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TooManyRequestsError);
    expect(refused).toMatchObject({ description: expect.stringMatching(/^Too many requests to the token endpoint for this grant; retry after \d+ seconds$/) });
    // The storage was not asked: the token the client holds is still the current one.
    expect(calls).toEqual([]);
  });

  it('another grant (another family) is not affected', async () => {
    const { grant } = setup(ROTATES, configWith({ RATE_LIMIT_TOKEN_PER_GRANT: '1' }));
    const other = `OtherFamily0${'o'.repeat(43)}`;
    const next = await grant.handle(client(), FormParams.from({ refresh_token: FAMILY_TOKEN }), { address: ADDRESS, dpopJkt: null, origin: ORIGIN });
    await expect(grant.handle(client(), FormParams.from({ refresh_token: next.refresh_token as string }), { address: ADDRESS, dpopJkt: null, origin: ORIGIN })).rejects.toBeInstanceOf(TooManyRequestsError);
    await expect(grant.handle(client(), FormParams.from({ refresh_token: other }), { address: ADDRESS, dpopJkt: null, origin: ORIGIN })).resolves.toMatchObject({ token_type: 'Bearer' });
  });
});

describe('RefreshTokenGrant with a DPoP proof (RFC 9449 §5)', () => {
  const refresh = (tokenEndpointAuthMethod: RegisteredClient['tokenEndpointAuthMethod']) => {
    const { grant, presented, stored } = setup(ROTATES);
    const response = grant.handle(client({ tokenEndpointAuthMethod }), FormParams.from({ refresh_token: TOKEN }), { address: ADDRESS, dpopJkt: JKT, origin: ORIGIN });
    return { response, presented, stored };
  };

  it('a public client: the access token and the successor refresh token are bound to the proof’s key; token_type DPoP', async () => {
    const { response, stored } = refresh('none');
    expect((await response).token_type).toBe('DPoP');
    expect(stored.map((tokens) => [tokens.access.dpopJkt, tokens.refresh?.dpopJkt])).toEqual([[JKT, JKT]]);
  });

  it('a confidential client: the access token is bound, its refresh token is not (already sender-constrained)', async () => {
    const { response, stored } = refresh('client_secret_basic');
    expect((await response).token_type).toBe('DPoP');
    expect(stored.map((tokens) => [tokens.access.dpopJkt, tokens.refresh?.dpopJkt])).toEqual([[JKT, null]]);
  });

  it('a bound token in the reuse window with its own key: a sibling pair of the grant, bound like the successor', async () => {
    const { grant, calls, stored: tokens } = setup(STATE(storedToken({ dpopJkt: JKT, rotatedAt: secondsAgo(5) })));
    const response = await grant.handle(client(), FormParams.from({ refresh_token: TOKEN }), { address: ADDRESS, dpopJkt: JKT, origin: ORIGIN });
    expect(response.token_type).toBe('DPoP');
    expect(calls).toEqual([ROTATE, 'findRefreshToken', `issueInGrant grant-1 refresh:${FULL} access:${FULL}`]);
    expect(tokens.map((stored) => [stored.access.dpopJkt, stored.refresh?.dpopJkt])).toEqual([[JKT, JKT], [JKT, JKT]]); // the rotation it tried, then the sibling
  });

  it('presents the proof’s key with the token, so that the single-use step rotates a bound token only with it', async () => {
    const { response, presented } = refresh('none');
    await response;
    expect(presented.map((token) => token.dpopJkt)).toEqual([JKT]);
  });
});
