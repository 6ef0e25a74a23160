import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { batchWhileInFlight } from '../database/batch-while-in-flight';
import { PG_POOL, query, type Statement, statement, utc } from '../database/pg-pool';
import { ActiveAccessTokens } from './active-access-tokens';
import type { AuthorizationCodeStorage, CodeExchange, CodeOwner, ConsumedCode } from './grants/authorization-code.storage';
import type { PresentedRefreshToken, RefreshTokenStorage } from './grants/refresh-token.storage';
import { insertTokenIssuedEvent, type IssuingRequest, tokenIssuedEventArrays } from '../security-events/token-issued-event';
import type { AccessTokenWithUser, ActiveAccessTokenRow, IssuedGrant, NewTokens, RefreshTokenRow } from './token-rows';

/**
 * The token endpoint's, introspection's and userinfo's storage: SQL of our own over the shared pg
 * pool (Prisma owns the schema and migrations; these statements name its tables and columns).
 *
 * Each step that must happen once is one statement, so PostgreSQL decides the race: of parallel
 * statements updating one row, the later ones wait for the first to commit, re-check their WHERE
 * against the committed row (READ COMMITTED) and find nothing to do. Every statement that stores
 * tokens takes a share lock on its grant row, and a grant's revocation (tokens.repository.ts)
 * updates the grant row in a statement of its own before it revokes the tokens: tokens stored
 * concurrently with a revocation are either refused or revoked with it, and named in its event.
 *
 * Rotations and code exchanges go in batches (batch-while-in-flight.ts): the requests that come
 * while a statement of their kind is in the database go together in the next one, each a row of
 * `unnest(…) WITH ORDINALITY`, its result the row numbered like it. Two requests with one token
 * in a batch are two join rows for one row of the UPDATE, which PostgreSQL updates once, for one
 * of them. A batch takes its grants' share locks with NOWAIT: it never waits on one grant (being
 * revoked) while holding the others; refused, its requests go one by one, each waiting as needed.
 *
 * A further row of a code exchange or a rotation belongs in the same statement: a CTE inserting
 * from `consumed` / `rotated`, as the auth.token.issued event does (token-issued-event.ts): the
 * event commits with the tokens it reports, and the hot path pays no commit of its own for it.
 */

/**
 * RFC 6749 §6 with rotation (RFC 9700 §4.14.2), for a batch: one array element per request.
 * $1–$5: the presented token, the client, the requested scopes (null: none asked) and the access
 * token's scope (null: the token's), the address tag kept on the rotated-out token; $6–$14: the
 * new tokens (NewTokens); $15: the thumbprint of the request's DPoP key (null: no proof); $16–$19:
 * the request as its auth.token.issued event names it (tokenIssuedEventArrays). A token bound to a
 * DPoP key rotates only with a proof by that key (RFC 9449 §5): with another key or none nothing
 * happens to it.
 */
const ROTATE_REFRESH_TOKENS = statement(
  'rotate_refresh_tokens',
  `
WITH request AS (
  SELECT * FROM unnest(
    $1::text[], $2::text[], $3::text[], $4::text[], $5::text[],
    $6::timestamp[], $7::text[], $8::text[], $9::timestamp[], $10::text[], $11::text[], $12::timestamp[], $13::text[], $14::text[],
    $15::text[], $16::text[], $17::text[], $18::text[], $19::text[]
  ) WITH ORDINALITY AS r(presented_hash, client_id, requested_scopes, access_scope, address_tag,
                         now, refresh_id, refresh_hash, refresh_expires_at, access_id, access_hash, access_expires_at, refresh_jkt, access_jkt,
                         proof_jkt, event_id, event_grant_type, event_address, event_request_id, n)
),
presented AS (
  SELECT r.*, t.id AS token_id, t.grant_id
  FROM request r JOIN refresh_tokens t ON t.token_hash = r.presented_hash
),
live_grant AS (
  SELECT g.* FROM (SELECT DISTINCT grant_id FROM presented ORDER BY grant_id) p
  CROSS JOIN LATERAL (
    SELECT id, user_id, school_id, resource, nonce, auth_time
    FROM grants WHERE id = p.grant_id AND revoked_at IS NULL
    FOR SHARE
  ) g
),
rotated AS (
  UPDATE refresh_tokens t SET rotated_at = p.now, rotation_address_tag = p.address_tag
  FROM presented p JOIN live_grant g ON g.id = p.grant_id
  WHERE t.id = p.token_id AND t.client_id = p.client_id
    AND t.rotated_at IS NULL AND t.revoked_at IS NULL AND t.expires_at > p.now
    AND (t.dpop_jkt IS NULL OR t.dpop_jkt = p.proof_jkt)
    AND (p.requested_scopes IS NULL OR string_to_array(t.scope, ' ') @> string_to_array(p.requested_scopes, ' '))
  RETURNING p.*, t.scope, coalesce(p.access_scope, t.scope) AS issued_scope,
            g.user_id, g.school_id, g.resource, g.nonce, g.auth_time
),
issued_event AS (
  ${insertTokenIssuedEvent('issued_scope')}
  FROM rotated
),
new_refresh AS (
  INSERT INTO refresh_tokens (id, token_hash, grant_id, client_id, scope, resource, dpop_jkt, issued_at, expires_at)
  SELECT refresh_id, refresh_hash, grant_id, client_id, scope, resource, refresh_jkt, now, refresh_expires_at FROM rotated
),
new_access AS (
  INSERT INTO access_tokens (id, token_hash, grant_id, refresh_token_id, client_id, user_id, school_id, scope, audience, dpop_jkt, issued_at, expires_at)
  SELECT access_id, access_hash, grant_id, refresh_id, client_id, user_id, school_id, issued_scope, resource, access_jkt, now, access_expires_at FROM rotated
)
SELECT n, grant_id AS "grantId", client_id AS "clientId", user_id AS "userId", school_id AS "schoolId",
       resource, nonce, auth_time AS "authTime", issued_scope AS "accessScope"
FROM rotated`,
);

/**
 * RFC 6749 §4.1.3, for a batch: one array element per request. Each code is consumed, once
 * (consumed_at IS NULL), whatever comes next; the tokens are inserted only when it is unexpired,
 * its grant alive, the redirect_uri identical and the PKCE challenge the code's. $1–$4: the
 * presented code, the client, redirect_uri, the challenge of the code_verifier; $5–$13: the new
 * tokens (NewTokens; refresh_* null for none); $14: the thumbprint of the request's DPoP key (null:
 * no proof); $15–$18: the request as its auth.token.issued event names it (tokenIssuedEventArrays).
 * A code bound to a key (dpop_jkt, RFC 9449 §10) is not even consumed without a proof by it.
 */
const CONSUME_CODES = statement(
  'consume_codes',
  `
WITH request AS (
  SELECT * FROM unnest(
    $1::text[], $2::text[], $3::text[], $4::text[],
    $5::timestamp[], $6::text[], $7::text[], $8::timestamp[], $9::text[], $10::text[], $11::timestamp[], $12::text[], $13::text[],
    $14::text[], $15::text[], $16::text[], $17::text[], $18::text[]
  ) WITH ORDINALITY AS r(code_hash, client_id, redirect_uri, code_challenge,
                         now, refresh_id, refresh_hash, refresh_expires_at, access_id, access_hash, access_expires_at, refresh_jkt, access_jkt,
                         proof_jkt, event_id, event_grant_type, event_address, event_request_id, n)
),
presented AS (
  SELECT r.*, c.id AS code_id, c.grant_id
  FROM request r JOIN authorization_codes c ON c.code_hash = r.code_hash
),
code_grant AS (
  SELECT g.* FROM (SELECT DISTINCT grant_id, client_id FROM presented ORDER BY grant_id) p
  CROSS JOIN LATERAL (
    SELECT id, client_id, user_id, school_id, scope, resource, nonce, auth_time, revoked_at
    FROM grants WHERE id = p.grant_id AND client_id = p.client_id
    FOR SHARE
  ) g
),
consumed AS (
  UPDATE authorization_codes c SET consumed_at = p.now
  FROM presented p JOIN code_grant g ON g.id = p.grant_id AND g.client_id = p.client_id
  WHERE c.id = p.code_id AND c.consumed_at IS NULL
    AND (c.dpop_jkt IS NULL OR c.dpop_jkt = p.proof_jkt)
  RETURNING p.*, c.expires_at, c.redirect_uri AS stored_redirect_uri, c.code_challenge AS stored_code_challenge,
            g.revoked_at AS grant_revoked_at, g.user_id, g.school_id, g.scope, g.resource, g.nonce, g.auth_time,
            (c.expires_at > p.now AND g.revoked_at IS NULL
             AND c.redirect_uri = p.redirect_uri AND c.code_challenge = p.code_challenge) AS valid
),
issued_event AS (
  ${insertTokenIssuedEvent('scope')}
  FROM consumed WHERE valid
),
new_refresh AS (
  INSERT INTO refresh_tokens (id, token_hash, grant_id, client_id, scope, resource, dpop_jkt, issued_at, expires_at)
  SELECT refresh_id, refresh_hash, grant_id, client_id, scope, resource, refresh_jkt, now, refresh_expires_at
  FROM consumed WHERE valid AND refresh_hash IS NOT NULL
),
new_access AS (
  INSERT INTO access_tokens (id, token_hash, grant_id, refresh_token_id, client_id, user_id, school_id, scope, audience, dpop_jkt, issued_at, expires_at)
  SELECT access_id, access_hash, grant_id, refresh_id, client_id, user_id, school_id, scope, resource, access_jkt, now, access_expires_at
  FROM consumed WHERE valid
)
SELECT n, expires_at AS "expiresAt", stored_redirect_uri AS "redirectUri", stored_code_challenge AS "codeChallenge",
       grant_revoked_at AS "grantRevokedAt", valid,
       grant_id AS "grantId", client_id AS "clientId", user_id AS "userId", school_id AS "schoolId",
       resource, nonce, auth_time AS "authTime", scope AS "accessScope"
FROM consumed`,
);

/** A batch of several: the same statement, refused rather than waiting for a grant's lock (see the header). */
const ROTATE_REFRESH_TOKENS_NOWAIT = statement('rotate_refresh_tokens_nowait', ROTATE_REFRESH_TOKENS.text.replace('FOR SHARE', 'FOR SHARE NOWAIT'));
const CONSUME_CODES_NOWAIT = statement('consume_codes_nowait', CONSUME_CODES.text.replace('FOR SHARE', 'FOR SHARE NOWAIT'));

/**
 * The reuse window: a new pair in a grant still alive, nothing rotated. $1 the grant, $2 the
 * refresh token's scope, $3 the access token's; $4–$10 the new tokens; $11, $12 the DPoP keys
 * the new refresh and access tokens are bound to (null: none); $13–$16 the request as its
 * auth.token.issued event names it (tokenIssuedEventArrays).
 */
const ISSUE_IN_GRANT = statement(
  'issue_in_grant',
  `
WITH live_grant AS (
  SELECT id, client_id, user_id, school_id, resource, nonce, auth_time
  FROM grants WHERE id = $1 AND revoked_at IS NULL
  FOR SHARE
),
new_refresh AS (
  INSERT INTO refresh_tokens (id, token_hash, grant_id, client_id, scope, resource, dpop_jkt, issued_at, expires_at)
  SELECT $5, $6, id, client_id, $2, resource, $11, $4::timestamp, $7::timestamp FROM live_grant
),
new_access AS (
  INSERT INTO access_tokens (id, token_hash, grant_id, refresh_token_id, client_id, user_id, school_id, scope, audience, dpop_jkt, issued_at, expires_at)
  SELECT $8, $9, id, $5, client_id, user_id, school_id, $3, resource, $12, $4::timestamp, $10::timestamp FROM live_grant
),
issued AS (
  SELECT id AS grant_id, client_id, user_id, school_id, resource, $3::text AS scope, $4::timestamp AS now,
         $13::text AS event_id, $14::text AS event_grant_type, $15::text AS event_address, $16::text AS event_request_id
  FROM live_grant
),
issued_event AS (
  ${insertTokenIssuedEvent('scope')}
  FROM issued
)
SELECT id AS "grantId", client_id AS "clientId", user_id AS "userId", school_id AS "schoolId",
       resource, nonce, auth_time AS "authTime", $3::text AS "accessScope"
FROM live_grant`,
);

const FIND_CODE_OWNER = statement(
  'find_code_owner',
  `
SELECT g.client_id AS "clientId", g.id AS "grantId", c.consumed_at IS NOT NULL AS consumed, c.dpop_jkt AS "dpopJkt"
FROM authorization_codes c JOIN grants g ON g.id = c.grant_id
WHERE c.code_hash = $1`,
);

const FIND_REFRESH_TOKEN = statement(
  'find_refresh_token',
  `
SELECT r.id, r.token_hash AS "tokenHash", r.grant_id AS "grantId", r.client_id AS "clientId", r.scope,
       r.issued_at AS "issuedAt", r.expires_at AS "expiresAt", r.rotated_at AS "rotatedAt",
       r.rotation_address_tag AS "rotationAddressTag", r.revoked_at AS "revokedAt", r.dpop_jkt AS "dpopJkt",
       g.revoked_at AS "grantRevokedAt", g.user_id AS "userId", g.school_id AS "schoolId", g.resource
FROM refresh_tokens r JOIN grants g ON g.id = r.grant_id
WHERE r.token_hash = $1`,
);

const FIND_ACTIVE_ACCESS_TOKEN = statement(
  'find_active_access_token',
  `
SELECT a.id, a.token_hash AS "tokenHash", a.grant_id AS "grantId", a.client_id AS "clientId", a.scope,
       a.issued_at AS "issuedAt", a.expires_at AS "expiresAt", a.dpop_jkt AS "dpopJkt",
       g.user_id AS "userId", g.school_id AS "schoolId", g.resource
FROM access_tokens a JOIN grants g ON g.id = a.grant_id
WHERE a.token_hash = $1 AND a.revoked_at IS NULL AND g.revoked_at IS NULL AND a.expires_at > $2::timestamp`,
);

const FIND_ACTIVE_ACCESS_TOKEN_WITH_USER = statement(
  'find_active_access_token_with_user',
  `
SELECT a.scope, a.dpop_jkt AS "dpopJkt", u.id, u.name, u.email, u.email_verified AS "emailVerified", u.school_id AS "schoolId", u.role
FROM access_tokens a JOIN grants g ON g.id = a.grant_id JOIN users u ON u.id = g.user_id
WHERE a.token_hash = $1 AND a.revoked_at IS NULL AND g.revoked_at IS NULL AND a.expires_at > $2::timestamp`,
);

interface Rotation {
  presented: PresentedRefreshToken;
  tokens: NewTokens;
  request: IssuingRequest;
}

interface Exchange {
  exchange: CodeExchange;
  tokens: NewTokens;
  request: IssuingRequest;
}

/** Batches no larger than this (the requests in flight at once on one process are far fewer). */
const MAX_BATCH_SIZE = 64;

type Numbered<Row> = Row & { n: string };
type ConsumedRow = Omit<ConsumedCode, 'issued'> & IssuedGrant & { valid: boolean };

@Injectable()
export class TokenStore implements AuthorizationCodeStorage, RefreshTokenStorage {
  private readonly rotations = batchWhileInFlight<Rotation, IssuedGrant | null>({
    maxBatchSize: MAX_BATCH_SIZE,
    runBatch: (items) => this.rotate(ROTATE_REFRESH_TOKENS_NOWAIT, items),
    runAlone: async (item) => (await this.rotate(ROTATE_REFRESH_TOKENS, [item]))[0] ?? null,
  });

  private readonly codeExchanges = batchWhileInFlight<Exchange, ConsumedCode | null>({
    maxBatchSize: MAX_BATCH_SIZE,
    runBatch: (items) => this.consume(CONSUME_CODES_NOWAIT, items),
    runAlone: async (item) => (await this.consume(CONSUME_CODES, [item]))[0] ?? null,
  });

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly activeTokens: ActiveAccessTokens,
  ) {}

  consumeCode(exchange: CodeExchange, tokens: NewTokens, request: IssuingRequest): Promise<ConsumedCode | null> {
    return this.activeTokens.afterIssue(
      () => this.codeExchanges({ exchange, tokens, request }),
      (consumed) => (consumed?.issued ? activeToken(tokens, consumed.issued) : null),
    );
  }

  async findCodeOwner(codeHash: string): Promise<CodeOwner | null> {
    const rows = await query<CodeOwner>(this.pool, FIND_CODE_OWNER, [codeHash]);
    return rows[0] ?? null;
  }

  rotateRefreshToken(presented: PresentedRefreshToken, tokens: NewTokens, request: IssuingRequest): Promise<IssuedGrant | null> {
    return this.activeTokens.afterIssue(
      () => this.rotations({ presented, tokens, request }),
      (grant) => grant && activeToken(tokens, grant),
    );
  }

  async issueInGrant(grantId: string, scopes: { refresh: string; access: string }, tokens: NewTokens, request: IssuingRequest): Promise<IssuedGrant | null> {
    const refresh = withRefresh(tokens);
    return this.activeTokens.afterIssue(
      async () => {
        const rows = await query<IssuedGrant>(this.pool, ISSUE_IN_GRANT, [
          grantId,
          scopes.refresh,
          scopes.access,
          utc(tokens.now),
          refresh.id,
          refresh.tokenHash,
          utc(refresh.expiresAt),
          tokens.access.id,
          tokens.access.tokenHash,
          utc(tokens.access.expiresAt),
          refresh.dpopJkt,
          tokens.access.dpopJkt,
          ...tokenIssuedEventArrays([request]).map(([value]) => value),
        ]);
        return rows[0] ?? null;
      },
      (grant) => grant && activeToken(tokens, grant),
    );
  }

  async findRefreshToken(tokenHash: string): Promise<RefreshTokenRow | null> {
    type Row = Omit<RefreshTokenRow, 'grant'> & { grantRevokedAt: Date | null; userId: string; schoolId: string; resource: string };
    const [row] = await query<Row>(this.pool, FIND_REFRESH_TOKEN, [tokenHash]);
    if (!row) return null;
    const { grantRevokedAt, userId, schoolId, resource, ...token } = row;
    return { ...token, grant: { revokedAt: grantRevokedAt, userId, schoolId, resource } };
  }

  /** The live access token of this hash at `now`: held in memory (ActiveAccessTokens), else read and held. */
  async findActiveAccessToken(tokenHash: string, now: Date): Promise<ActiveAccessTokenRow | null> {
    const token = await this.activeTokens.read(tokenHash, async () => {
      type Row = Omit<ActiveAccessTokenRow, 'grant'> & ActiveAccessTokenRow['grant'];
      const [row] = await query<Row>(this.pool, FIND_ACTIVE_ACCESS_TOKEN, [tokenHash, utc(now)]);
      if (!row) return null;
      const { userId, schoolId, resource, ...held } = row;
      return { ...held, grant: { userId, schoolId, resource } };
    });
    return token && token.expiresAt > now ? token : null;
  }

  /** The live access token of this hash with its grant's user (userinfo; not held in memory). */
  async findActiveAccessTokenWithUser(tokenHash: string, now: Date): Promise<AccessTokenWithUser | null> {
    const [row] = await query<{ scope: string; dpopJkt: string | null } & AccessTokenWithUser['grant']['user']>(
      this.pool,
      FIND_ACTIVE_ACCESS_TOKEN_WITH_USER,
      [tokenHash, utc(now)],
    );
    if (!row) return null;
    const { scope, dpopJkt, ...user } = row;
    return { scope, dpopJkt, grant: { user } };
  }

  private async rotate(rotation: Statement, items: readonly Rotation[]): Promise<Array<IssuedGrant | null>> {
    const rows = await query<Numbered<IssuedGrant>>(this.pool, rotation, [
      items.map(({ presented }) => presented.tokenHash),
      items.map(({ presented }) => presented.clientId),
      items.map(({ presented }) => presented.requested?.scopes.join(' ') ?? null),
      items.map(({ presented }) => presented.requested?.scope ?? null),
      items.map(({ presented }) => presented.addressTag),
      ...newTokenArrays(items.map(({ tokens }) => tokens)),
      items.map(({ presented }) => presented.dpopJkt),
      ...tokenIssuedEventArrays(items.map(({ request }) => request)),
    ]);
    return byItem(rows, items.length);
  }

  private async consume(consumption: Statement, items: readonly Exchange[]): Promise<Array<ConsumedCode | null>> {
    const rows = await query<Numbered<ConsumedRow>>(this.pool, consumption, [
      items.map(({ exchange }) => exchange.codeHash),
      items.map(({ exchange }) => exchange.clientId),
      items.map(({ exchange }) => exchange.redirectUri),
      items.map(({ exchange }) => exchange.codeChallenge),
      ...newTokenArrays(items.map(({ tokens }) => tokens)),
      items.map(({ exchange }) => exchange.dpopJkt),
      ...tokenIssuedEventArrays(items.map(({ request }) => request)),
    ]);
    return byItem(rows, items.length).map((row) => {
      if (!row) return null;
      const { expiresAt, redirectUri, codeChallenge, grantRevokedAt, valid, ...issued } = row;
      return { expiresAt, redirectUri, codeChallenge, grantRevokedAt, issued: valid ? issued : null };
    });
  }
}

/**
 * The new tokens of a batch as the statements' arrays: now, refresh id, hash, expiry, access id, hash,
 * expiry, the DPoP keys the refresh and the access token are bound to.
 */
function newTokenArrays(batch: readonly NewTokens[]): unknown[][] {
  return [
    batch.map((tokens) => utc(tokens.now)),
    batch.map((tokens) => tokens.refresh?.id ?? null),
    batch.map((tokens) => tokens.refresh?.tokenHash ?? null),
    batch.map((tokens) => (tokens.refresh ? utc(tokens.refresh.expiresAt) : null)),
    batch.map((tokens) => tokens.access.id),
    batch.map((tokens) => tokens.access.tokenHash),
    batch.map((tokens) => utc(tokens.access.expiresAt)),
    batch.map((tokens) => tokens.refresh?.dpopJkt ?? null),
    batch.map((tokens) => tokens.access.dpopJkt),
  ];
}

/** A batch's rows back to its items: row `n` (1-based, WITH ORDINALITY) is item n − 1's; null for an item with none. */
function byItem<Row>(rows: readonly Numbered<Row>[], count: number): Array<Row | null> {
  const results: Array<Row | null> = new Array(count).fill(null);
  for (const { n, ...row } of rows) results[Number(n) - 1] = row as Row;
  return results;
}

/** A refresh grant always stores a refresh token (the client is registered for the grant). */
function withRefresh(tokens: NewTokens): NonNullable<NewTokens['refresh']> {
  if (!tokens.refresh) throw new Error('a refresh grant issues a refresh token');
  return tokens.refresh;
}

/** The access token just stored, as introspection will answer it. */
function activeToken(tokens: NewTokens, grant: IssuedGrant): ActiveAccessTokenRow {
  return {
    id: tokens.access.id,
    tokenHash: tokens.access.tokenHash,
    grantId: grant.grantId,
    clientId: grant.clientId,
    scope: grant.accessScope,
    issuedAt: tokens.now,
    expiresAt: tokens.access.expiresAt,
    dpopJkt: tokens.access.dpopJkt,
    grant: { userId: grant.userId, schoolId: grant.schoolId, resource: grant.resource },
  };
}
