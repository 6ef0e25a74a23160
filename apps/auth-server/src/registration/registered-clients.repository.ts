import { Injectable } from '@nestjs/common';
import type { SecurityEvent } from '@platform/contracts';
import type { NewClient, RegisteredClient } from '../clients/clients.repository';
import { query, statement, utc } from '../database/pg-pool';
import { PrismaService } from '../database/prisma.service';
import { NOW } from '../security-events/security-event-outbox';

/**
 * A registered client and its auth.client.registered event in one statement: both are stored or
 * neither (the outbox row only if the client row was inserted). $1–$11 the client's columns,
 * $12 and $13 the event's id and JSON.
 */
const INSERT_REGISTERED_CLIENT = statement(
  'insert_registered_client',
  `
WITH client AS (
  INSERT INTO clients (id, secret_hash, name, application_type, redirect_uris, token_endpoint_auth_method, grant_types, response_types, scope,
                       dpop_bound_access_tokens, created_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
  RETURNING id
)
INSERT INTO security_event_outbox (id, payload, created_at, next_attempt_at)
SELECT $12, $13, ${NOW}, ${NOW} FROM client`,
);

/** RFC 7591 registration's storage: one INSERT over the shared pg pool, as ClientsRepository.insertClient. */
@Injectable()
export class RegisteredClientsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** created_at is the application's clock in UTC, as Prisma's @default(now()) would set it. */
  async insertRegisteredClient(client: NewClient, event: (client: RegisteredClient) => SecurityEvent): Promise<RegisteredClient> {
    const registered = { ...client, createdAt: new Date() };
    const recorded = event(registered);
    await query(this.prisma.pool, INSERT_REGISTERED_CLIENT, [
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
      utc(registered.createdAt),
      recorded.id,
      JSON.stringify(recorded),
    ]);
    return registered;
  }
}
