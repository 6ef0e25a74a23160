import { InvalidGrantError, InvalidRequestError, InvalidScopeError, InvalidTargetError, TooManyRequestsError, UnauthorizedClientError } from '@platform/oauth-errors';
import { MemoryRateLimitStore } from '@platform/rate-limits';
import type { RegisteredClient } from '../../clients/clients.repository';
import type { AuthConfig } from '../../config/auth-config';
import { loadLimitsConfig } from '../../config/limits-config';
import { FormParams } from '../../http/form-params';
import { hashToken } from '../../crypto/tokens';
import { type ExpectedOAuthError, expectOAuthError, expectTokenResponse, grantConfig, HOUR, ISSUER, OPAQUE_TOKEN, recordingRevoker, registeredClient, tokenIssuerOver } from '../../../test/support/unit-fixtures';
import { Clock } from '../clock';
import { rotationAddressTag } from '../rotation-address';
import { TokenEndpointLimits } from '../token-endpoint-limits';
import { TokenEndpointMetrics } from '../token-endpoint-metrics';
import type { IssuedRow, NewTokens, RefreshTokenRow, TokenQueries } from '../token-queries';
import { RefreshTokenGrant } from './refresh-token.grant';
import { UnmatchedGrantError } from './unmatched-grant.error';

/**
 * Table-driven unit spec (fosite flow_refresh_test.go style): each case names the refresh tokens
 * and grants the storage holds, the token request, and the exact error or response plus the
 * storage calls made. The storage is an in-memory double of the TokenQueries methods the grant
 * uses, keeping their documented contract (token-queries.ts); the SQL, its races included, is
 * proven in test/token-store. TokenIssuer is the real class over doubles of keys and cache
 * (test/support/unit-fixtures.ts).
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
/** What the rotation keeps of ADDRESS for TOKEN. */
const ROTATED_HERE = rotationAddressTag(hashToken(TOKEN), ADDRESS);
const secondsAgo = (seconds: number) => new Date(Date.now() - seconds * 1000);

interface Storage {
  tokens: Map<string, RefreshTokenRow>;
  grantsRevoked: Set<string>;
}

function client(overrides: Partial<RegisteredClient> = {}): RegisteredClient {
  return registeredClient({ id: 'client-a', name: 'A', scope: 'courses:read courses:write', ...overrides });
}

function storedToken(overrides: Partial<RefreshTokenRow> = {}, grantRevokedAt: Date | null = null): RefreshTokenRow {
  return {
    id: 'rt-1',
    tokenHash: hashToken(TOKEN),
    grantId: 'grant-1',
    clientId: 'client-a',
    scope: 'courses:read courses:write',
    issuedAt: secondsAgo(600),
    expiresAt: new Date(Date.now() + HOUR),
    rotatedAt: null,
    revokedAt: null,
    grant: { revokedAt: grantRevokedAt, userId: 'user-1', schoolId: 'school-1', resource: ISSUER },
    ...overrides,
  };
}

function issuedRow(token: RefreshTokenRow, accessScope: string): IssuedRow {
  return {
    grantId: token.grantId,
    clientId: token.clientId,
    userId: token.grant.userId,
    schoolId: token.grant.schoolId,
    resource: token.grant.resource,
    nonce: null,
    authTime: token.issuedAt,
    accessScope,
  };
}

/** The documented contract of the three TokenQueries methods the grant uses, in memory. */
function queriesDouble(
  storage: Storage,
  calls: string[],
): Pick<TokenQueries, 'rotateRefreshTokenAndIssue' | 'issueForGrant' | 'findRefreshTokenByHash'> {
  const grantRevoked = (token: RefreshTokenRow) => token.grant.revokedAt !== null || storage.grantsRevoked.has(token.grantId);
  return {
    async rotateRefreshTokenAndIssue(presentedHash, clientId, requested, tokens: NewTokens, addressTag) {
      calls.push(`rotateRefreshTokenAndIssue ${requested ? requested.scope : 'null'}`);
      const token = storage.tokens.get(presentedHash);
      // null when nothing rotated: unknown, another client's, rotated, revoked, expired, grant
      // revoked, or requested scopes beyond the token's.
      if (!token || token.clientId !== clientId || token.rotatedAt || token.revokedAt || grantRevoked(token)) return null;
      if (token.expiresAt <= tokens.now) return null;
      const granted = token.scope.split(' ');
      if (requested && !requested.scopes.every((scope) => granted.includes(scope))) return null;
      token.rotatedAt = tokens.now;
      token.rotationAddressTag = addressTag;
      if (tokens.refresh) storage.tokens.set(tokens.refresh.tokenHash, { ...token, ...tokens.refresh, rotatedAt: null, issuedAt: tokens.now });
      return issuedRow(token, requested?.scope ?? token.scope);
    },
    async issueForGrant(grantId, refreshScope, accessScope) {
      calls.push(`issueForGrant ${grantId} refresh:${refreshScope} access:${accessScope}`);
      const token = [...storage.tokens.values()].find((candidate) => candidate.grantId === grantId);
      if (!token || grantRevoked(token)) return null;
      return issuedRow(token, accessScope);
    },
    async findRefreshTokenByHash(tokenHash) {
      calls.push('findRefreshTokenByHash');
      const token = storage.tokens.get(tokenHash);
      return token ? { ...token, grant: { ...token.grant, revokedAt: grantRevoked(token) ? new Date() : token.grant.revokedAt } } : null;
    },
  };
}

function setup(tokens: RefreshTokenRow[], revokeGrantMeanwhile = false, grantConfiguration = config) {
  const storage: Storage = { tokens: new Map(tokens.map((token) => [token.tokenHash, token])), grantsRevoked: new Set() };
  const calls: string[] = [];
  const queries = queriesDouble(storage, calls);
  if (revokeGrantMeanwhile) {
    // A revocation commits between the read of the token and the sibling issuance.
    const find = queries.findRefreshTokenByHash;
    queries.findRefreshTokenByHash = async (hash) => {
      const found = await find(hash);
      if (found) storage.grantsRevoked.add(found.grantId);
      return found;
    };
  }
  const revoker = recordingRevoker(calls, (grantId) => storage.grantsRevoked.add(grantId));
  const metrics = new TokenEndpointMetrics();
  const limits = new TokenEndpointLimits(new MemoryRateLimitStore(), grantConfiguration, metrics);
  const grant = new RefreshTokenGrant(grantConfiguration, queries as TokenQueries, tokenIssuerOver(grantConfiguration), revoker, limits, metrics, new Clock());
  return { grant, storage, calls };
}

interface Case {
  name: string;
  given: { tokens: RefreshTokenRow[]; client?: Partial<RegisteredClient>; revokeGrantMeanwhile?: boolean; env?: Record<string, string>; address?: string };
  request: Record<string, string | string[]>;
  expected: (ExpectedOAuthError & { calls: string[] }) | { response: { scope: string }; calls: string[] };
  /** The presented token's stored rotation afterwards: rotated now, or left as it was. */
  presentedRotatedByThisRequest?: boolean;
}

const INVALID = 'The refresh token is invalid, expired or revoked';
const ROTATE = 'rotateRefreshTokenAndIssue null';
const FULL = 'courses:read courses:write';

const cases: Case[] = [
  {
    name: 'a current token rotates; the new access token has the grant’s scope',
    given: { tokens: [storedToken()] },
    request: { refresh_token: TOKEN },
    expected: { response: { scope: FULL }, calls: [ROTATE] },
    presentedRotatedByThisRequest: true,
  },
  {
    name: 'a narrower scope narrows the access token (§6)',
    given: { tokens: [storedToken()] },
    request: { refresh_token: TOKEN, scope: 'courses:read' },
    expected: { response: { scope: 'courses:read' }, calls: ['rotateRefreshTokenAndIssue courses:read'] },
    presentedRotatedByThisRequest: true,
  },
  {
    name: 'a resource this server serves (RFC 8707) rotates',
    given: { tokens: [storedToken()] },
    request: { refresh_token: TOKEN, resource: `${ISSUER}/api/v1` },
    expected: { response: { scope: FULL }, calls: [ROTATE] },
    presentedRotatedByThisRequest: true,
  },
  {
    name: 'missing refresh_token → invalid_request, storage untouched',
    given: { tokens: [storedToken()] },
    request: {},
    expected: { error: InvalidRequestError, code: 'invalid_request', description: 'The refresh_token parameter is required', calls: [] },
  },
  {
    name: 'an oversized refresh_token → invalid_request, never looked up',
    given: { tokens: [storedToken()] },
    request: { refresh_token: 'r'.repeat(513) },
    expected: { error: InvalidRequestError, code: 'invalid_request', description: 'The refresh_token parameter is too long', calls: [] },
  },
  {
    name: 'an oversized scope → invalid_request',
    given: { tokens: [storedToken()] },
    request: { refresh_token: TOKEN, scope: 's'.repeat(2001) },
    expected: { error: InvalidRequestError, code: 'invalid_request', description: 'The scope parameter is too long', calls: [] },
  },
  {
    name: 'a client not registered for refresh_token → unauthorized_client, token untouched',
    given: { tokens: [storedToken()], client: { grantTypes: ['authorization_code'] } },
    request: { refresh_token: TOKEN },
    expected: {
      error: UnauthorizedClientError,
      code: 'unauthorized_client',
      description: 'This client is not registered for the refresh_token grant',
      calls: [],
    },
  },
  {
    name: 'a scope beyond the original grant → invalid_scope, never issues (§6 MUST NOT)',
    given: { tokens: [storedToken({ scope: 'courses:read' })] },
    request: { refresh_token: TOKEN, scope: 'courses:read courses:write' },
    expected: {
      error: InvalidScopeError,
      code: 'invalid_scope',
      description: 'The requested scope exceeds the grant: courses:write',
      calls: ['rotateRefreshTokenAndIssue courses:read courses:write', 'findRefreshTokenByHash'],
    },
  },
  {
    name: 'an empty scope → invalid_scope, never issues',
    given: { tokens: [storedToken()] },
    request: { refresh_token: TOKEN, scope: ' ' },
    expected: { error: InvalidScopeError, code: 'invalid_scope', description: 'The requested scope is empty', calls: ['findRefreshTokenByHash'] },
  },
  {
    name: 'a resource this server does not serve → invalid_target (RFC 8707 §2), never rotates',
    given: { tokens: [storedToken()] },
    request: { refresh_token: TOKEN, resource: 'https://elsewhere.example/' },
    expected: {
      error: InvalidTargetError,
      code: 'invalid_target',
      description: `Unknown resource; this server issues tokens for ${ISSUER}`,
      calls: ['findRefreshTokenByHash'],
    },
  },
  {
    name: 'eleven resource parameters → invalid_request, never rotates',
    given: { tokens: [storedToken()] },
    request: { refresh_token: TOKEN, resource: Array.from({ length: 11 }, () => `${ISSUER}/mcp`) },
    expected: { error: InvalidRequestError, code: 'invalid_request', description: 'Too many resource parameters', calls: [] },
  },
  {
    name: 'an unknown refresh token → invalid_grant, counted as guessing (UnmatchedGrantError)',
    given: { tokens: [] },
    request: { refresh_token: TOKEN },
    expected: { error: UnmatchedGrantError, code: 'invalid_grant', description: INVALID, calls: [ROTATE, 'findRefreshTokenByHash'] },
  },
  {
    name: 'a refresh token of another client → invalid_grant, left untouched (§6), counted as guessing',
    given: { tokens: [storedToken({ clientId: 'client-b' })] },
    request: { refresh_token: TOKEN },
    expected: { error: UnmatchedGrantError, code: 'invalid_grant', description: INVALID, calls: [ROTATE, 'findRefreshTokenByHash'] },
    presentedRotatedByThisRequest: false,
  },
  {
    name: "another client's token rotated long ago → invalid_grant, its grant NOT revoked",
    given: { tokens: [storedToken({ clientId: 'client-b', rotatedAt: secondsAgo(3600), rotationAddressTag: ROTATED_HERE })] },
    request: { refresh_token: TOKEN },
    expected: { error: UnmatchedGrantError, code: 'invalid_grant', description: INVALID, calls: [ROTATE, 'findRefreshTokenByHash'] },
  },
  {
    name: 'a revoked refresh token → invalid_grant',
    given: { tokens: [storedToken({ revokedAt: secondsAgo(10) })] },
    request: { refresh_token: TOKEN },
    expected: {
      error: InvalidGrantError,
      code: 'invalid_grant',
      description: INVALID,
      detail: 'revoked',
      calls: [ROTATE, 'findRefreshTokenByHash'],
    },
  },
  {
    name: 'a refresh token of a revoked grant → invalid_grant, even inside the reuse window',
    given: { tokens: [storedToken({ rotatedAt: secondsAgo(1) }, secondsAgo(1))] },
    request: { refresh_token: TOKEN },
    expected: {
      error: InvalidGrantError,
      code: 'invalid_grant',
      description: INVALID,
      detail: 'revoked',
      calls: [ROTATE, 'findRefreshTokenByHash'],
    },
  },
  {
    name: 'an expired refresh token → invalid_grant, grant left alone',
    given: { tokens: [storedToken({ expiresAt: secondsAgo(1) })] },
    request: { refresh_token: TOKEN },
    expected: {
      error: InvalidGrantError,
      code: 'invalid_grant',
      description: INVALID,
      detail: 'expired or revoked',
      calls: [ROTATE, 'findRefreshTokenByHash'],
    },
  },
  {
    name: 'rotated within the reuse window → a sibling pair of the same grant, grant alive',
    given: { tokens: [storedToken({ rotatedAt: secondsAgo(2) })] },
    request: { refresh_token: TOKEN },
    expected: { response: { scope: FULL }, calls: [ROTATE, 'findRefreshTokenByHash', `issueForGrant grant-1 refresh:${FULL} access:${FULL}`] },
  },
  {
    name: 'within the window with a narrower scope: the sibling refresh token keeps the grant’s scope (§6 "identical")',
    given: { tokens: [storedToken({ rotatedAt: secondsAgo(2) })] },
    request: { refresh_token: TOKEN, scope: 'courses:read' },
    expected: {
      response: { scope: 'courses:read' },
      calls: ['rotateRefreshTokenAndIssue courses:read', 'findRefreshTokenByHash', `issueForGrant grant-1 refresh:${FULL} access:courses:read`],
    },
  },
  {
    name: 'within the window, a scope beyond the grant → invalid_scope, no sibling',
    given: { tokens: [storedToken({ scope: 'courses:read', rotatedAt: secondsAgo(2) })] },
    request: { refresh_token: TOKEN, scope: 'courses:write' },
    expected: {
      error: InvalidScopeError,
      code: 'invalid_scope',
      description: 'The requested scope exceeds the grant: courses:write',
      calls: ['rotateRefreshTokenAndIssue courses:write', 'findRefreshTokenByHash'],
    },
  },
  {
    name: 'within the window, grant revoked between the read and the issuance → invalid_grant',
    given: { tokens: [storedToken({ rotatedAt: secondsAgo(2) })], revokeGrantMeanwhile: true },
    request: { refresh_token: TOKEN },
    expected: {
      error: InvalidGrantError,
      code: 'invalid_grant',
      description: INVALID,
      detail: 'grant revoked meanwhile',
      calls: [ROTATE, 'findRefreshTokenByHash', `issueForGrant grant-1 refresh:${FULL} access:${FULL}`],
    },
  },
  {
    name: 'rotated after the reuse window, no address kept (rotated before it was) → invalid_grant and the whole grant is revoked (RFC 9700 §4.14.2)',
    given: { tokens: [storedToken({ rotatedAt: secondsAgo(GRACE_SECONDS + 5) })] },
    request: { refresh_token: TOKEN },
    expected: {
      error: InvalidGrantError,
      code: 'invalid_grant',
      description: INVALID,
      detail: 'refresh token reuse',
      calls: [ROTATE, 'findRefreshTokenByHash', 'revokeGrant grant-1 refresh_token_reuse'],
    },
  },
  {
    name: 'rotated out 2 h ago from another address → reuse: the whole grant is revoked',
    given: { tokens: [storedToken({ rotatedAt: secondsAgo(7200), rotationAddressTag: ROTATED_HERE })], address: ELSEWHERE },
    request: { refresh_token: TOKEN },
    expected: {
      error: InvalidGrantError,
      code: 'invalid_grant',
      description: INVALID,
      detail: 'refresh token reuse',
      calls: [ROTATE, 'findRefreshTokenByHash', 'revokeGrant grant-1 refresh_token_reuse'],
    },
  },
  {
    name: 'rotated out 2 h ago from this same address → a stale session: invalid_grant, the grant kept',
    given: { tokens: [storedToken({ rotatedAt: secondsAgo(7200), rotationAddressTag: ROTATED_HERE })] },
    request: { refresh_token: TOKEN },
    expected: {
      error: InvalidGrantError,
      code: 'invalid_grant',
      description: INVALID,
      detail: 'stale session: rotated out from this address, grant kept',
      calls: [ROTATE, 'findRefreshTokenByHash'],
    },
  },
  {
    name: 'REFRESH_STALE_SESSIONS_KEEP_GRANT=false: the same presentation revokes the grant',
    given: { tokens: [storedToken({ rotatedAt: secondsAgo(7200), rotationAddressTag: ROTATED_HERE })], env: { REFRESH_STALE_SESSIONS_KEEP_GRANT: 'false' } },
    request: { refresh_token: TOKEN },
    expected: {
      error: InvalidGrantError,
      code: 'invalid_grant',
      description: INVALID,
      detail: 'refresh token reuse',
      calls: [ROTATE, 'findRefreshTokenByHash', 'revokeGrant grant-1 refresh_token_reuse'],
    },
  },
];

describe('RefreshTokenGrant (RFC 6749 §6, RFC 9700 §4.14.2 rotation with a reuse window, RFC 8707)', () => {
  it.each(cases)('$name', async ({ given, request, expected, presentedRotatedByThisRequest }) => {
    const { grant, storage, calls } = setup(given.tokens, given.revokeGrantMeanwhile, given.env ? configWith(given.env) : config);
    const rotatedBefore = storage.tokens.get(hashToken(TOKEN))?.rotatedAt ?? null;

    const outcome = grant.handle(client(given.client), FormParams.from(request), { address: given.address ?? ADDRESS });

    if ('error' in expected) {
      await expectOAuthError(outcome, expected);
    } else {
      const response = await outcome;
      expectTokenResponse(response, expected.response.scope);
      expect(response.refresh_token).toMatch(OPAQUE_TOKEN);
      expect(response.refresh_token).not.toBe(TOKEN);
    }
    expect(calls).toEqual(expected.calls);
    if (presentedRotatedByThisRequest !== undefined) {
      const rotatedAfter = storage.tokens.get(hashToken(TOKEN))?.rotatedAt ?? null;
      expect(rotatedAfter !== rotatedBefore).toBe(presentedRotatedByThisRequest);
    }
  });
});

describe('RefreshTokenGrant: the rotation keeps the caller’s address tag and the token’s family', () => {
  it('keeps the tag of the rotating address on the rotated-out token', async () => {
    const { grant, storage } = setup([storedToken()]);
    await grant.handle(client(), FormParams.from({ refresh_token: TOKEN }), { address: ADDRESS });
    expect(storage.tokens.get(hashToken(TOKEN))?.rotationAddressTag).toBe(ROTATED_HERE);
  });

  it('a token of a family has successors (and siblings) of the same family; a token without one starts one', async () => {
    const { grant } = setup([storedToken({ tokenHash: hashToken(FAMILY_TOKEN) }), storedToken({ rotatedAt: secondsAgo(2) })]);
    const successor = await grant.handle(client(), FormParams.from({ refresh_token: FAMILY_TOKEN }), { address: ADDRESS });
    expect(successor.refresh_token).toMatch(new RegExp(`^${FAMILY}[A-Za-z0-9_-]{43}$`));
    const sibling = await grant.handle(client(), FormParams.from({ refresh_token: TOKEN }), { address: ADDRESS });
    expect(sibling.refresh_token).toMatch(/^[A-Za-z0-9_-]{55}$/);
    expect(sibling.refresh_token?.startsWith(FAMILY)).toBe(false);
  });
});

describe('RefreshTokenGrant: the per-grant limit (RATE_LIMIT_TOKEN_PER_GRANT)', () => {
  it('counts each success of a family and refuses the next refresh BEFORE it rotates: the client keeps a working token', async () => {
    const limited = configWith({ RATE_LIMIT_TOKEN_PER_GRANT: '2' });
    const { grant, storage, calls } = setup([storedToken({ tokenHash: hashToken(FAMILY_TOKEN) })], false, limited);
    let current = FAMILY_TOKEN;
    for (let i = 0; i < 2; i++) {
      current = (await grant.handle(client(), FormParams.from({ refresh_token: current }), { address: ADDRESS })).refresh_token as string;
    }
    calls.length = 0;
    const refused = await grant.handle(client(), FormParams.from({ refresh_token: current }), { address: ADDRESS }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TooManyRequestsError);
    expect(refused).toMatchObject({ description: expect.stringMatching(/^Too many requests to the token endpoint for this grant; retry after \d+ seconds$/) });
    // Nothing rotated: the token the client holds is still the current one.
    expect(calls).toEqual([]);
    expect(storage.tokens.get(hashToken(current))?.rotatedAt).toBeNull();
  });

  it('another grant (another family) is not affected', async () => {
    const limited = configWith({ RATE_LIMIT_TOKEN_PER_GRANT: '1' });
    const other = `OtherFamily0${'o'.repeat(43)}`;
    const { grant } = setup([storedToken({ tokenHash: hashToken(FAMILY_TOKEN) }), storedToken({ tokenHash: hashToken(other), grantId: 'grant-2' })], false, limited);
    const next = await grant.handle(client(), FormParams.from({ refresh_token: FAMILY_TOKEN }), { address: ADDRESS });
    await expect(grant.handle(client(), FormParams.from({ refresh_token: next.refresh_token as string }), { address: ADDRESS })).rejects.toBeInstanceOf(TooManyRequestsError);
    await expect(grant.handle(client(), FormParams.from({ refresh_token: other }), { address: ADDRESS })).resolves.toMatchObject({ token_type: 'Bearer' });
  });
});
