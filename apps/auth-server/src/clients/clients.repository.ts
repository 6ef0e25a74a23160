import { Injectable } from '@nestjs/common';
import { isClientIdSyntax, type TokenEndpointAuthMethod } from '@platform/contracts';
import { query, statement, utc } from '../database/pg-pool';
import { PrismaService } from '../database/prisma.service';

export interface RegisteredClient {
  id: string;
  secretHash: string | null;
  name: string | null;
  applicationType: string;
  redirectUris: string[];
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  grantTypes: string[];
  responseTypes: string[];
  scope: string;
  /** RFC 9449 §5.2 dpop_bound_access_tokens: every token request of this client must carry a DPoP proof. */
  dpopBoundAccessTokens: boolean;
  createdAt: Date;
}

export type NewClient = Omit<RegisteredClient, 'createdAt'>;

/** The row as the client directory needs it: the registered fields plus how the client came to be. */
export interface StoredClient extends RegisteredClient {
  kind: string;
  disabledAt: Date | null;
  scopeCeiling: string | null;
}

const INSERT_CLIENT = statement('insert_client', `INSERT INTO clients
  (id, secret_hash, name, application_type, redirect_uris, token_endpoint_auth_method, grant_types, response_types, scope,
   dpop_bound_access_tokens, created_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`);

const SELECT_CLIENT = statement('select_client', `SELECT id, secret_hash AS "secretHash", name, application_type AS "applicationType",
  redirect_uris AS "redirectUris", token_endpoint_auth_method AS "tokenEndpointAuthMethod", grant_types AS "grantTypes",
  response_types AS "responseTypes", scope, dpop_bound_access_tokens AS "dpopBoundAccessTokens", created_at AS "createdAt", kind, disabled_at AS "disabledAt",
  scope_ceiling AS "scopeCeiling"
  FROM clients WHERE id = $1`);

@Injectable()
export class ClientsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * One INSERT over the shared pg pool: Prisma's query compiler cost several times the statement
   * itself. Columns left out take their schema
   * defaults (kind 'dynamic', no ceiling); created_at is the application's clock in UTC, as
   * Prisma's @default(now()) would set it.
   */
  async insertClient(client: NewClient): Promise<RegisteredClient> {
    const createdAt = new Date();
    await query(this.prisma.pool, INSERT_CLIENT, [
      client.id,
      client.secretHash,
      client.name,
      client.applicationType,
      client.redirectUris,
      client.tokenEndpointAuthMethod,
      client.grantTypes,
      client.responseTypes,
      client.scope,
      client.dpopBoundAccessTokens,
      utc(createdAt),
    ]);
    return { ...client, createdAt };
  }

  /**
   * Every token request authenticates its client: one SELECT over the shared pool (through
   * Prisma's query compiler it was a large share of the refresh grant's CPU).
   */
  async findClientById(id: string): Promise<StoredClient | null> {
    if (!isClientIdSyntax(id)) return null;
    const [row] = await query<StoredClient>(this.prisma.pool, SELECT_CLIENT, [id]);
    return row ?? null;
  }
}
