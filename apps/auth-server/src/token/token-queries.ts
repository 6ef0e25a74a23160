import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { PG_POOL, query, statement, utc } from '../database/pg-pool';

/**
 * The token endpoint's and introspection's statements, in SQL of our own over the shared pg
 * pool (Prisma's query compiler costs more CPU than these requests do otherwise). Prisma owns
 * the schema and migrations; these statements name its tables and columns.
 *
 * Each step that must happen once is one statement (or one CTE), so PostgreSQL decides the
 * race: of parallel statements updating one row, the later ones wait for the first to commit,
 * re-check their WHERE against the committed row (READ COMMITTED) and find nothing to do.
 *
 * Every statement that issues tokens takes a share lock on its grant row, and revokeGrant
 * (tokens.repository.ts) updates the grant row in a statement of its own before it revokes
 * the tokens: so tokens issued concurrently with a revocation are either refused (the
 * revocation came first) or visible to it and listed in its revocation event.
 */

/** The new tokens' values: ids and hashes made by the caller, times of the issuing request. */
export interface NewTokens {
  now: Date;
  /** null: no refresh token (a client not registered for the refresh_token grant). */
  refresh: { id: string; tokenHash: string; expiresAt: Date } | null;
  access: { id: string; tokenHash: string; expiresAt: Date };
}

/** What an issuing statement returns: the grant the tokens belong to, and the access token's scope. */
export interface IssuedRow {
  grantId: string;
  clientId: string;
  userId: string;
  schoolId: string;
  resource: string;
  nonce: string | null;
  authTime: Date;
  accessScope: string;
}

/** An access token that is live: not revoked, its grant not revoked, not expired. */
export interface ActiveAccessTokenRow {
  id: string;
  tokenHash: string;
  grantId: string;
  clientId: string;
  scope: string;
  issuedAt: Date;
  expiresAt: Date;
  grant: { userId: string; schoolId: string; resource: string };
}

export interface RefreshTokenRow {
  id: string;
  tokenHash: string;
  grantId: string;
  clientId: string;
  scope: string;
  issuedAt: Date;
  expiresAt: Date;
  rotatedAt: Date | null;
  revokedAt: Date | null;
  grant: { revokedAt: Date | null; userId: string; schoolId: string; resource: string };
}

/** An authorization code just consumed by this request, whether or not tokens came of it. */
export interface ConsumedCodeRow {
  expiresAt: Date;
  redirectUri: string;
  codeChallenge: string;
  grantRevokedAt: Date | null;
  /** Set when the checks passed and the tokens were inserted. */
  issued: IssuedRow | null;
}

/**
 * Inserts a refresh token (unless $3 is null) and an access token for the one row of the CTE
 * `source` (columns grant_id, client_id, user_id, school_id, resource, scope); nothing when
 * `source` is empty. Parameters $1–$8 are those of issueParams().
 */
const INSERT_TOKENS = `
new_refresh AS (
  INSERT INTO refresh_tokens (id, token_hash, grant_id, client_id, scope, resource, issued_at, expires_at)
  SELECT $2, $3, s.grant_id, s.client_id, s.scope, s.resource, $1::timestamp, $4::timestamp
  FROM source s WHERE $3::text IS NOT NULL
  RETURNING id
),
new_access AS (
  INSERT INTO access_tokens (id, token_hash, grant_id, refresh_token_id, client_id, user_id, school_id, scope, audience, issued_at, expires_at)
  SELECT $5, $6, s.grant_id, (SELECT id FROM new_refresh), s.client_id, s.user_id, s.school_id, coalesce($8, s.scope), s.resource,
         $1::timestamp, $7::timestamp
  FROM source s
  RETURNING scope
)`;

/** The IssuedRow columns, from `source` and `new_access`. */
const ISSUED_COLUMNS = `
  s.grant_id AS "grantId", s.client_id AS "clientId", s.user_id AS "userId", s.school_id AS "schoolId",
  s.resource, s.nonce, s.auth_time AS "authTime", (SELECT scope FROM new_access) AS "accessScope"`;

function issueParams(tokens: NewTokens, accessScope: string | null): unknown[] {
  return [
    utc(tokens.now),
    tokens.refresh?.id ?? null,
    tokens.refresh?.tokenHash ?? null,
    tokens.refresh ? utc(tokens.refresh.expiresAt) : null,
    tokens.access.id,
    tokens.access.tokenHash,
    utc(tokens.access.expiresAt),
    accessScope,
  ];
}

/** RFC 6749 §6 rotation: the presented refresh token, if current, rotates and a new pair is issued. */
const ROTATE_AND_ISSUE = statement('rotate_refresh_token_and_issue', `
WITH presented AS (
  SELECT id, grant_id FROM refresh_tokens WHERE token_hash = $9
),
live_grant AS (
  SELECT g.id, g.client_id, g.user_id, g.school_id, g.resource, g.nonce, g.auth_time
  FROM grants g WHERE g.id = (SELECT grant_id FROM presented) AND g.revoked_at IS NULL
  FOR SHARE
),
source AS (
  UPDATE refresh_tokens rt SET rotated_at = $1::timestamp
  FROM live_grant g
  WHERE rt.id = (SELECT id FROM presented) AND rt.grant_id = g.id AND rt.client_id = $10
    AND rt.rotated_at IS NULL AND rt.revoked_at IS NULL AND rt.expires_at > $1::timestamp
    AND ($11::text[] IS NULL OR string_to_array(rt.scope, ' ') @> $11::text[])
  RETURNING rt.grant_id, g.client_id, g.user_id, g.school_id, g.resource, g.nonce, g.auth_time, rt.scope
),
${INSERT_TOKENS}
SELECT ${ISSUED_COLUMNS} FROM source s`);

/** A new pair for a grant that is still alive (the reuse window of refresh-reuse.ts): nothing rotates. */
const ISSUE_FOR_GRANT = statement('issue_for_grant', `
WITH source AS (
  SELECT g.id AS grant_id, g.client_id, g.user_id, g.school_id, g.resource, g.nonce, g.auth_time, $10::text AS scope
  FROM grants g WHERE g.id = $9 AND g.revoked_at IS NULL
  FOR SHARE
),
${INSERT_TOKENS}
SELECT ${ISSUED_COLUMNS} FROM source s`);

/**
 * RFC 6749 §4.1.3: the code is consumed (once: consumed_at IS NULL) whatever comes next;
 * tokens are inserted only when it is unexpired, its grant alive, the redirect_uri identical
 * and the PKCE challenge matches.
 */
const CONSUME_CODE_AND_ISSUE = statement('consume_code_and_issue', `
WITH presented AS (
  SELECT c.id, c.grant_id FROM authorization_codes c WHERE c.code_hash = $9
),
code_grant AS (
  SELECT g.id, g.client_id, g.user_id, g.school_id, g.resource, g.nonce, g.auth_time, g.scope, g.revoked_at
  FROM grants g WHERE g.id = (SELECT grant_id FROM presented) AND g.client_id = $10
  FOR SHARE
),
consumed AS (
  UPDATE authorization_codes c SET consumed_at = $1::timestamp
  FROM code_grant g
  WHERE c.id = (SELECT id FROM presented) AND c.grant_id = g.id AND c.consumed_at IS NULL
  RETURNING c.expires_at, c.redirect_uri, c.code_challenge, g.revoked_at AS grant_revoked_at,
            g.id AS grant_id, g.client_id, g.user_id, g.school_id, g.resource, g.nonce, g.auth_time, g.scope,
            (c.expires_at > $1::timestamp AND g.revoked_at IS NULL AND c.redirect_uri = $11 AND c.code_challenge = $12) AS valid
),
source AS (
  SELECT * FROM consumed WHERE valid
),
${INSERT_TOKENS}
SELECT c.expires_at AS "expiresAt", c.redirect_uri AS "redirectUri", c.code_challenge AS "codeChallenge",
       c.grant_revoked_at AS "grantRevokedAt", c.valid, ${ISSUED_COLUMNS.replace(/\bs\./g, 'c.')}
FROM consumed c`);

const FIND_ACTIVE_ACCESS_TOKEN = statement('find_active_access_token', `
SELECT a.id, a.token_hash AS "tokenHash", a.grant_id AS "grantId", a.client_id AS "clientId", a.scope,
       a.issued_at AS "issuedAt", a.expires_at AS "expiresAt",
       g.user_id AS "userId", g.school_id AS "schoolId", g.resource
FROM access_tokens a JOIN grants g ON g.id = a.grant_id
WHERE a.token_hash = $1 AND a.revoked_at IS NULL AND g.revoked_at IS NULL AND a.expires_at > $2::timestamp`);

const FIND_REFRESH_TOKEN = statement('find_refresh_token', `
SELECT r.id, r.token_hash AS "tokenHash", r.grant_id AS "grantId", r.client_id AS "clientId", r.scope,
       r.issued_at AS "issuedAt", r.expires_at AS "expiresAt", r.rotated_at AS "rotatedAt", r.revoked_at AS "revokedAt",
       g.revoked_at AS "grantRevokedAt", g.user_id AS "userId", g.school_id AS "schoolId", g.resource
FROM refresh_tokens r JOIN grants g ON g.id = r.grant_id
WHERE r.token_hash = $1`);

const FIND_CODE_CLIENT = statement('find_code_client', `
SELECT g.client_id AS "clientId", g.id AS "grantId"
FROM authorization_codes c JOIN grants g ON g.id = c.grant_id
WHERE c.code_hash = $1`);

type Flat<T> = Omit<T, 'grant'>;

@Injectable()
export class TokenQueries {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  /**
   * Rotates the presented refresh token and issues its successor pair, in one statement; null
   * when nothing rotated (unknown, another client's, already rotated, revoked, expired, grant
   * revoked, or `requested.scopes` beyond the token's): the caller then finds out which. The new
   * access token has `requested.scope`, by default the refresh token's.
   */
  async rotateRefreshTokenAndIssue(
    presentedHash: string,
    clientId: string,
    requested: { scopes: readonly string[]; scope: string } | null,
    tokens: NewTokens,
  ): Promise<IssuedRow | null> {
    const rows = await query<IssuedRow>(this.pool, ROTATE_AND_ISSUE, [
      ...issueParams(tokens, requested?.scope ?? null),
      presentedHash,
      clientId,
      requested?.scopes ?? null,
    ]);
    return rows[0] ?? null;
  }

  /** Issues a pair in a grant that is still alive (nothing rotates); null when the grant was revoked. */
  async issueForGrant(grantId: string, refreshScope: string, accessScope: string, tokens: NewTokens): Promise<IssuedRow | null> {
    const rows = await query<IssuedRow>(this.pool, ISSUE_FOR_GRANT, [...issueParams(tokens, accessScope), grantId, refreshScope]);
    return rows[0] ?? null;
  }

  /**
   * Consumes the client's code and, if it passes the checks, issues the tokens, in one
   * statement; null when nothing was consumed (unknown, another client's, or already used).
   */
  async consumeCodeAndIssue(
    codeHash: string,
    clientId: string,
    redirectUri: string,
    codeChallenge: string,
    tokens: NewTokens,
  ): Promise<ConsumedCodeRow | null> {
    const rows = await query<Flat<ConsumedCodeRow> & IssuedRow & { valid: boolean }>(this.pool, CONSUME_CODE_AND_ISSUE, [
      ...issueParams(tokens, null),
      codeHash,
      clientId,
      redirectUri,
      codeChallenge,
    ]);
    const row = rows[0];
    if (!row) return null;
    const { expiresAt, redirectUri: storedRedirectUri, codeChallenge: storedChallenge, grantRevokedAt, valid, ...issued } = row;
    return { expiresAt, redirectUri: storedRedirectUri, codeChallenge: storedChallenge, grantRevokedAt, issued: valid ? issued : null };
  }

  /** The client and grant of a code, consumed or not (to tell a replay from an unknown code). */
  async findCodeClientByHash(codeHash: string): Promise<{ clientId: string; grantId: string } | null> {
    const rows = await query<{ clientId: string; grantId: string }>(this.pool, FIND_CODE_CLIENT, [codeHash]);
    return rows[0] ?? null;
  }

  async findActiveAccessTokenByHash(tokenHash: string, now: Date): Promise<ActiveAccessTokenRow | null> {
    const rows = await query<Flat<ActiveAccessTokenRow> & ActiveAccessTokenRow['grant']>(this.pool, FIND_ACTIVE_ACCESS_TOKEN, [
      tokenHash,
      utc(now),
    ]);
    const row = rows[0];
    if (!row) return null;
    const { userId, schoolId, resource, ...token } = row;
    return { ...token, grant: { userId, schoolId, resource } };
  }

  /** A refresh token in any state, with its grant's (the committed state when called after a failed rotation). */
  async findRefreshTokenByHash(tokenHash: string): Promise<RefreshTokenRow | null> {
    const rows = await query<Flat<RefreshTokenRow> & Omit<RefreshTokenRow['grant'], 'revokedAt'> & { grantRevokedAt: Date | null }>(
      this.pool,
      FIND_REFRESH_TOKEN,
      [tokenHash],
    );
    const row = rows[0];
    if (!row) return null;
    const { grantRevokedAt, userId, schoolId, resource, ...token } = row;
    return { ...token, grant: { revokedAt: grantRevokedAt, userId, schoolId, resource } };
  }
}
