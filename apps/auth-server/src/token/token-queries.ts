import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { batchWhileInFlight } from '../database/batch-while-in-flight';
import { PG_POOL, query, type Statement, statement, utc } from '../database/pg-pool';

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
 *
 * Rotations and code exchanges go in batches (batch-while-in-flight.ts): the requests that came
 * while the previous batch was in the database, in one statement, each a row of `unnest(…) WITH
 * ORDINALITY` and its result the row numbered like it. The rules above hold within a batch: two
 * requests with one token are two join rows for one row of the UPDATE, which PostgreSQL updates
 * once, for one of them.
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
  /** What is kept of the address that rotated it out (rotation-address.ts); null while current, or rotated before it was kept. */
  rotationAddressTag?: string | null;
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
 * The columns of one request's new tokens (NewTokens, and the access token's scope: null for
 * the scope of the grant or refresh token), as the batched statements unnest them from
 * parameters $1–$8 (tokenArrays()).
 */
const TOKEN_COLUMN_TYPES = [
  ['now', 'timestamp'],
  ['refresh_id', 'text'],
  ['refresh_hash', 'text'],
  ['refresh_expires_at', 'timestamp'],
  ['access_id', 'text'],
  ['access_hash', 'text'],
  ['access_expires_at', 'timestamp'],
  ['access_scope', 'text'],
] as const;
const TOKEN_COLUMNS = TOKEN_COLUMN_TYPES.map(([column]) => column).join(', ');
const TOKEN_ARRAYS = TOKEN_COLUMN_TYPES.map(([, type], index) => `$${index + 1}::${type}[]`).join(', ');
const prefixed = (alias: string) => TOKEN_COLUMN_TYPES.map(([column]) => `${alias}.${column}`).join(', ');

/** One request's values of the TOKEN_COLUMNS. */
function tokenValues(tokens: NewTokens, accessScope: string | null): unknown[] {
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

/** The TOKEN_COLUMNS of a batch, one array per column. */
function tokenArrays(items: ReadonlyArray<{ tokens: NewTokens; accessScope: string | null }>): unknown[][] {
  const rows = items.map((item) => tokenValues(item.tokens, item.accessScope));
  return TOKEN_COLUMN_TYPES.map((_, column) => rows.map((row) => row[column]));
}

/**
 * Inserts a refresh token (unless refresh_hash is null) and an access token for each row of
 * the CTE `source` (the grant's columns grant_id, client_id, user_id, school_id, resource,
 * scope, and the TOKEN_COLUMNS); nothing when `source` is empty.
 */
const INSERT_TOKENS = `
new_refresh AS (
  INSERT INTO refresh_tokens (id, token_hash, grant_id, client_id, scope, resource, issued_at, expires_at)
  SELECT s.refresh_id, s.refresh_hash, s.grant_id, s.client_id, s.scope, s.resource, s.now, s.refresh_expires_at
  FROM source s WHERE s.refresh_hash IS NOT NULL
),
new_access AS (
  INSERT INTO access_tokens (id, token_hash, grant_id, refresh_token_id, client_id, user_id, school_id, scope, audience, issued_at, expires_at)
  SELECT s.access_id, s.access_hash, s.grant_id, CASE WHEN s.refresh_hash IS NOT NULL THEN s.refresh_id END,
         s.client_id, s.user_id, s.school_id, coalesce(s.access_scope, s.scope), s.resource, s.now, s.access_expires_at
  FROM source s
  RETURNING id, scope
)`;

/** The IssuedRow columns, from `s` (a row of `source`) and `a` (its row of `new_access`). */
const ISSUED_COLUMNS = `
  s.grant_id AS "grantId", s.client_id AS "clientId", s.user_id AS "userId", s.school_id AS "schoolId",
  s.resource, s.nonce, s.auth_time AS "authTime", a.scope AS "accessScope"`;

/**
 * The share locks of a batch on its grants (see the header): taken in the grants' id order, and
 * with NOWAIT when the batch has several: a batch never waits on one grant while holding
 * another (a revocation in progress), it is refused and its items go one by one
 * (batch-while-in-flight.ts), each waiting as a lone statement always did.
 */
type GrantLock = 'FOR SHARE' | 'FOR SHARE NOWAIT';

/**
 * RFC 6749 §6 rotation, for a batch of requests: each presented refresh token, if current,
 * rotates (keeping the tag of the address that rotated it) and a new pair is issued. Of two
 * requests in one batch with the same token, the UPDATE rotates the row once, for one of them.
 */
const rotateAndIssue = (lock: GrantLock) => `
WITH request AS (
  SELECT * FROM unnest(${TOKEN_ARRAYS}, $9::text[], $10::text[], $11::text[], $12::text[])
    WITH ORDINALITY AS r(${TOKEN_COLUMNS}, presented_hash, client_id, requested_scopes, address_tag, n)
),
presented AS (
  SELECT r.*, rt.id AS refresh_token_id, rt.grant_id
  FROM request r JOIN refresh_tokens rt ON rt.token_hash = r.presented_hash
),
live_grant AS (
  SELECT g.* FROM (SELECT DISTINCT grant_id FROM presented ORDER BY grant_id) p
  CROSS JOIN LATERAL (
    SELECT g.id, g.client_id, g.user_id, g.school_id, g.resource, g.nonce, g.auth_time
    FROM grants g WHERE g.id = p.grant_id AND g.revoked_at IS NULL
    ${lock}
  ) g
),
source AS (
  UPDATE refresh_tokens rt SET rotated_at = p.now, rotation_address_tag = p.address_tag
  FROM presented p JOIN live_grant g ON g.id = p.grant_id
  WHERE rt.id = p.refresh_token_id AND rt.client_id = p.client_id
    AND rt.rotated_at IS NULL AND rt.revoked_at IS NULL AND rt.expires_at > p.now
    AND (p.requested_scopes IS NULL OR string_to_array(rt.scope, ' ') @> string_to_array(p.requested_scopes, ' '))
  RETURNING p.n, ${prefixed('p')},
            rt.grant_id, g.client_id, g.user_id, g.school_id, g.resource, g.nonce, g.auth_time, rt.scope
),
${INSERT_TOKENS}
SELECT s.n, ${ISSUED_COLUMNS} FROM source s JOIN new_access a ON a.id = s.access_id`;

const ROTATE_ONE = statement('rotate_refresh_token_and_issue', rotateAndIssue('FOR SHARE'));
const ROTATE_BATCH = statement('rotate_refresh_tokens_and_issue', rotateAndIssue('FOR SHARE NOWAIT'));

/** A new pair for a grant that is still alive (the reuse window of refresh-reuse.ts): nothing rotates. */
const ISSUE_FOR_GRANT = statement('issue_for_grant', `
WITH source AS (
  SELECT g.id AS grant_id, g.client_id, g.user_id, g.school_id, g.resource, g.nonce, g.auth_time, $10::text AS scope,
         $1::timestamp AS now, $2::text AS refresh_id, $3::text AS refresh_hash, $4::timestamp AS refresh_expires_at,
         $5::text AS access_id, $6::text AS access_hash, $7::timestamp AS access_expires_at, $8::text AS access_scope
  FROM grants g WHERE g.id = $9 AND g.revoked_at IS NULL
  FOR SHARE
),
${INSERT_TOKENS}
SELECT ${ISSUED_COLUMNS} FROM source s JOIN new_access a ON a.id = s.access_id`);

/**
 * RFC 6749 §4.1.3, for a batch of requests: each code is consumed (once: consumed_at IS NULL)
 * whatever comes next; tokens are inserted only when it is unexpired, its grant alive, the
 * redirect_uri identical and the PKCE challenge matches.
 */
const consumeCodeAndIssue = (lock: GrantLock) => `
WITH request AS (
  SELECT * FROM unnest(${TOKEN_ARRAYS}, $9::text[], $10::text[], $11::text[], $12::text[])
    WITH ORDINALITY AS r(${TOKEN_COLUMNS}, code_hash, client_id, redirect_uri, code_challenge, n)
),
presented AS (
  SELECT r.*, c.id AS code_id, c.grant_id
  FROM request r JOIN authorization_codes c ON c.code_hash = r.code_hash
),
code_grant AS (
  SELECT g.* FROM (SELECT DISTINCT grant_id, client_id FROM presented ORDER BY grant_id) p
  CROSS JOIN LATERAL (
    SELECT g.id, g.client_id, g.user_id, g.school_id, g.resource, g.nonce, g.auth_time, g.scope, g.revoked_at
    FROM grants g WHERE g.id = p.grant_id AND g.client_id = p.client_id
    ${lock}
  ) g
),
consumed AS (
  UPDATE authorization_codes c SET consumed_at = p.now
  FROM presented p JOIN code_grant g ON g.id = p.grant_id AND g.client_id = p.client_id
  WHERE c.id = p.code_id AND c.consumed_at IS NULL
  RETURNING p.n, ${prefixed('p')},
            c.expires_at, c.redirect_uri AS stored_redirect_uri, c.code_challenge AS stored_code_challenge,
            g.revoked_at AS grant_revoked_at, g.id AS grant_id, g.client_id, g.user_id, g.school_id, g.resource, g.nonce,
            g.auth_time, g.scope,
            (c.expires_at > p.now AND g.revoked_at IS NULL AND c.redirect_uri = p.redirect_uri AND c.code_challenge = p.code_challenge) AS valid
),
source AS (
  SELECT * FROM consumed WHERE valid
),
${INSERT_TOKENS}
SELECT s.n, s.expires_at AS "expiresAt", s.stored_redirect_uri AS "redirectUri", s.stored_code_challenge AS "codeChallenge",
       s.grant_revoked_at AS "grantRevokedAt", s.valid, ${ISSUED_COLUMNS}
FROM consumed s LEFT JOIN new_access a ON a.id = s.access_id`;

const CONSUME_ONE = statement('consume_code_and_issue', consumeCodeAndIssue('FOR SHARE'));
const CONSUME_BATCH = statement('consume_codes_and_issue', consumeCodeAndIssue('FOR SHARE NOWAIT'));

/** A batch's rows back to its items: row `n` (1-based, WITH ORDINALITY) is item n − 1's; null for an item with none. */
function byItem<Row extends { n: string | number }>(rows: Row[], count: number): Array<Omit<Row, 'n'> | null> {
  const results: Array<Omit<Row, 'n'> | null> = new Array(count).fill(null);
  for (const { n, ...row } of rows) results[Number(n) - 1] = row;
  return results;
}

const FIND_ACTIVE_ACCESS_TOKEN = statement('find_active_access_token', `
SELECT a.id, a.token_hash AS "tokenHash", a.grant_id AS "grantId", a.client_id AS "clientId", a.scope,
       a.issued_at AS "issuedAt", a.expires_at AS "expiresAt",
       g.user_id AS "userId", g.school_id AS "schoolId", g.resource
FROM access_tokens a JOIN grants g ON g.id = a.grant_id
WHERE a.token_hash = $1 AND a.revoked_at IS NULL AND g.revoked_at IS NULL AND a.expires_at > $2::timestamp`);

const FIND_REFRESH_TOKEN = statement('find_refresh_token', `
SELECT r.id, r.token_hash AS "tokenHash", r.grant_id AS "grantId", r.client_id AS "clientId", r.scope,
       r.issued_at AS "issuedAt", r.expires_at AS "expiresAt", r.rotated_at AS "rotatedAt",
       r.rotation_address_tag AS "rotationAddressTag", r.revoked_at AS "revokedAt",
       g.revoked_at AS "grantRevokedAt", g.user_id AS "userId", g.school_id AS "schoolId", g.resource
FROM refresh_tokens r JOIN grants g ON g.id = r.grant_id
WHERE r.token_hash = $1`);

const FIND_CODE_CLIENT = statement('find_code_client', `
SELECT g.client_id AS "clientId", g.id AS "grantId"
FROM authorization_codes c JOIN grants g ON g.id = c.grant_id
WHERE c.code_hash = $1`);

type Flat<T> = Omit<T, 'grant'>;

interface RotationItem {
  tokens: NewTokens;
  accessScope: string | null;
  presentedHash: string;
  clientId: string;
  /** The requested scope's names, unknown ones included, space-delimited: they must all be the token's. */
  requestedScopes: string | null;
  /** rotation-address.ts: kept on the presented token if it rotates (null: nothing kept). */
  addressTag: string | null;
}

interface CodeItem {
  tokens: NewTokens;
  accessScope: null;
  codeHash: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
}

type ConsumedRow = Flat<ConsumedCodeRow> & IssuedRow & { valid: boolean };

/** Batches no larger than this (the requests in flight at once on one process are far fewer). */
const MAX_BATCH_SIZE = 64;

@Injectable()
export class TokenQueries {
  /**
   * The rotations and code exchanges of this process, each kind in batches: one statement at a
   * time in the database, the requests that come meanwhile together in the next
   * (batch-while-in-flight.ts; issue 12: PostgreSQL's CPU per rotation about a third in
   * batches of 10).
   */
  private readonly rotations = batchWhileInFlight<RotationItem, IssuedRow | null>({
    maxBatchSize: MAX_BATCH_SIZE,
    runBatch: (items) => this.rotate(ROTATE_BATCH, items),
    runAlone: async (item) => (await this.rotate(ROTATE_ONE, [item]))[0] ?? null,
  });

  private readonly codeExchanges = batchWhileInFlight<CodeItem, ConsumedCodeRow | null>({
    maxBatchSize: MAX_BATCH_SIZE,
    runBatch: (items) => this.consume(CONSUME_BATCH, items),
    runAlone: async (item) => (await this.consume(CONSUME_ONE, [item]))[0] ?? null,
  });

  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  /**
   * Rotates the presented refresh token and issues its successor pair, in one statement; null
   * when nothing rotated (unknown, another client's, already rotated, revoked, expired, grant
   * revoked, or `requested.scopes` beyond the token's): the caller then finds out which. The new
   * access token has `requested.scope`, by default the refresh token's. The rotated-out token
   * keeps `addressTag` (rotation-address.ts; null: none, its late reuse is reuse from anywhere).
   */
  rotateRefreshTokenAndIssue(
    presentedHash: string,
    clientId: string,
    requested: { scopes: readonly string[]; scope: string } | null,
    tokens: NewTokens,
    addressTag: string | null = null,
  ): Promise<IssuedRow | null> {
    return this.rotations({
      tokens,
      accessScope: requested?.scope ?? null,
      presentedHash,
      clientId,
      requestedScopes: requested ? requested.scopes.join(' ') : null,
      addressTag,
    });
  }

  /** Issues a pair in a grant that is still alive (nothing rotates); null when the grant was revoked. */
  async issueForGrant(grantId: string, refreshScope: string, accessScope: string, tokens: NewTokens): Promise<IssuedRow | null> {
    const rows = await query<IssuedRow>(this.pool, ISSUE_FOR_GRANT, [...tokenValues(tokens, accessScope), grantId, refreshScope]);
    return rows[0] ?? null;
  }

  /**
   * Consumes the client's code and, if it passes the checks, issues the tokens, in one
   * statement; null when nothing was consumed (unknown, another client's, or already used).
   */
  consumeCodeAndIssue(codeHash: string, clientId: string, redirectUri: string, codeChallenge: string, tokens: NewTokens): Promise<ConsumedCodeRow | null> {
    return this.codeExchanges({ tokens, accessScope: null, codeHash, clientId, redirectUri, codeChallenge });
  }

  private rotate(rotation: Statement, items: readonly RotationItem[]): Promise<Array<IssuedRow | null>> {
    return this.batchRows<RotationItem, IssuedRow>(rotation, items, [
      (item) => item.presentedHash,
      (item) => item.clientId,
      (item) => item.requestedScopes,
      (item) => item.addressTag,
    ]);
  }

  private async consume(consumption: Statement, items: readonly CodeItem[]): Promise<Array<ConsumedCodeRow | null>> {
    const rows = await this.batchRows<CodeItem, ConsumedRow>(consumption, items, [
      (item) => item.codeHash,
      (item) => item.clientId,
      (item) => item.redirectUri,
      (item) => item.codeChallenge,
    ]);
    return rows.map((row) => {
      if (!row) return null;
      const { expiresAt, redirectUri, codeChallenge, grantRevokedAt, valid, ...issued } = row;
      return { expiresAt, redirectUri, codeChallenge, grantRevokedAt, issued: valid ? issued : null };
    });
  }

  /**
   * A batched statement: the items' TOKEN_COLUMNS as $1–$8, then one array per column of
   * `columns`; each item's row (or null) in the items' order.
   */
  private async batchRows<Item extends { tokens: NewTokens; accessScope: string | null }, Row>(
    batch: Statement,
    items: readonly Item[],
    columns: ReadonlyArray<(item: Item) => unknown>,
  ): Promise<Array<Omit<Row, 'n'> | null>> {
    const rows = await query<Row & { n: string }>(this.pool, batch, [...tokenArrays(items), ...columns.map((column) => items.map(column))]);
    return byItem(rows, items.length);
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
