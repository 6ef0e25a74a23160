import { InvalidGrantError, InvalidRequestError, InvalidScopeError, InvalidTargetError, UnauthorizedClientError } from '@platform/oauth-errors';
import type { RegisteredClient } from '../../clients/clients.repository';
import { FormParams } from '../../http/form-params';
import { hashToken } from '../../crypto/tokens';
import { type ExpectedOAuthError, expectOAuthError, expectTokenResponse, grantConfig, HOUR, ISSUER, OPAQUE_TOKEN, recordingRevoker, registeredClient, tokenIssuerOver } from '../../../test/support/unit-fixtures';
import type { IssuedRow, NewTokens, RefreshTokenRow, TokenQueries } from '../token-queries';
import { RefreshTokenGrant } from './refresh-token.grant';

/**
 * Table-driven unit spec (fosite flow_refresh_test.go style): each case names the refresh tokens
 * and grants the storage holds, the token request, and the exact error or response plus the
 * storage calls made. The storage is an in-memory double of the TokenQueries methods the grant
 * uses, keeping their documented contract (token-queries.ts); the SQL, its races included, is
 * proven in test/token-store. TokenIssuer is the real class over doubles of keys and cache
 * (test/support/unit-fixtures.ts).
 */

const GRACE_SECONDS = 30;
const config = grantConfig(GRACE_SECONDS);

const TOKEN = 'refresh-abcdefghijklmnopqrstuvwxyz';
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
    async rotateRefreshTokenAndIssue(presentedHash, clientId, requested, tokens: NewTokens) {
      calls.push(`rotateRefreshTokenAndIssue ${requested ? requested.scope : 'null'}`);
      const token = storage.tokens.get(presentedHash);
      // null when nothing rotated: unknown, another client's, rotated, revoked, expired, grant
      // revoked, or requested scopes beyond the token's.
      if (!token || token.clientId !== clientId || token.rotatedAt || token.revokedAt || grantRevoked(token)) return null;
      if (token.expiresAt <= tokens.now) return null;
      const granted = token.scope.split(' ');
      if (requested && !requested.scopes.every((scope) => granted.includes(scope))) return null;
      token.rotatedAt = tokens.now;
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

function setup(tokens: RefreshTokenRow[], revokeGrantMeanwhile = false) {
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
  const grant = new RefreshTokenGrant(config, queries as TokenQueries, tokenIssuerOver(config), revoker);
  return { grant, storage, calls };
}

interface Case {
  name: string;
  given: { tokens: RefreshTokenRow[]; client?: Partial<RegisteredClient>; revokeGrantMeanwhile?: boolean };
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
    name: 'an unknown refresh token → invalid_grant',
    given: { tokens: [] },
    request: { refresh_token: TOKEN },
    expected: { error: InvalidGrantError, code: 'invalid_grant', description: INVALID, calls: [ROTATE, 'findRefreshTokenByHash'] },
  },
  {
    name: 'a refresh token of another client → invalid_grant, left untouched (§6)',
    given: { tokens: [storedToken({ clientId: 'client-b' })] },
    request: { refresh_token: TOKEN },
    expected: { error: InvalidGrantError, code: 'invalid_grant', description: INVALID, calls: [ROTATE, 'findRefreshTokenByHash'] },
    presentedRotatedByThisRequest: false,
  },
  {
    name: "another client's token rotated long ago → invalid_grant, its grant NOT revoked",
    given: { tokens: [storedToken({ clientId: 'client-b', rotatedAt: secondsAgo(3600) })] },
    request: { refresh_token: TOKEN },
    expected: { error: InvalidGrantError, code: 'invalid_grant', description: INVALID, calls: [ROTATE, 'findRefreshTokenByHash'] },
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
    name: 'rotated after the reuse window → invalid_grant and the whole grant is revoked (RFC 9700 §4.14.2)',
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
];

describe('RefreshTokenGrant (RFC 6749 §6, RFC 9700 §4.14.2 rotation with a reuse window, RFC 8707)', () => {
  it.each(cases)('$name', async ({ given, request, expected, presentedRotatedByThisRequest }) => {
    const { grant, storage, calls } = setup(given.tokens, given.revokeGrantMeanwhile);
    const rotatedBefore = storage.tokens.get(hashToken(TOKEN))?.rotatedAt ?? null;

    const outcome = grant.handle(client(given.client), FormParams.from(request));

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
