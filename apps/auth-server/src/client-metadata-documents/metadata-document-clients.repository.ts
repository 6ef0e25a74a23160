import { Injectable } from '@nestjs/common';
import { query, statement } from '../database/pg-pool';
import { PrismaService } from '../database/prisma.service';
import { Prisma } from '../generated/prisma/client';
import { metadataDocumentClientFirstSeen } from '../security-events/recorded-events';
import { securityEventOf } from '../security-events/security-event';
import { appendSecurityEventsIn } from '../security-events/security-event-outbox';
import type { MetadataDocumentClient } from './document-validation';

export const METADATA_DOCUMENT_KIND = 'metadata_document';

const SELECT_CLIENT_STATE = statement(
  'select_metadata_document_client_state',
  `SELECT created_at AS "createdAt", disabled_at AS "disabledAt" FROM clients WHERE id = $1`,
);

export interface StoredClientState {
  createdAt: Date;
  disabledAt: Date | null;
}

/**
 * A metadata-document client gets a row in `clients` like any other, keyed by its URL, so
 * grants, codes and tokens reference it exactly as they reference registered clients, and
 * staff can disable it. The row mirrors the last valid document; the document stays the
 * source of truth.
 */
@Injectable()
export class MetadataDocumentClientsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * The row mirrors the document just fetched: created the first time the client is seen, with
   * its security event in the same transaction (again after the clean-up purged a row that
   * never authorized anything), updated afterwards.
   */
  saveFetchedDocument(client: MetadataDocumentClient, now: Date): Promise<StoredClientState> {
    const metadata = {
      name: client.name,
      applicationType: client.applicationType,
      redirectUris: client.redirectUris,
      tokenEndpointAuthMethod: client.tokenEndpointAuthMethod,
      grantTypes: client.grantTypes,
      responseTypes: client.responseTypes,
      scope: client.scope,
      // Mirrored for staff (npm run clients -- show); the authenticator reads the document's own.
      jwks: client.keys && 'jwks' in client.keys ? (client.keys.jwks as unknown as Prisma.InputJsonObject) : Prisma.DbNull,
      jwksUri: client.keys && 'jwksUri' in client.keys ? client.keys.jwksUri : null,
      metadataFetchedAt: now,
    };
    return this.prisma.$transaction(async (tx) => {
      // Of two replicas seeing the client at once, one creates the row (and records it), the other updates it.
      const created = await tx.client.createMany({ data: [{ id: client.id, secretHash: null, kind: METADATA_DOCUMENT_KIND, ...metadata }], skipDuplicates: true });
      if (created.count === 1) await appendSecurityEventsIn(tx, [securityEventOf(metadataDocumentClientFirstSeen(client))]);
      else await tx.client.update({ where: { id: client.id }, data: metadata });
      return tx.client.findUniqueOrThrow({ where: { id: client.id }, select: { createdAt: true, disabledAt: true } });
    });
  }

  /**
   * Read on every request of a metadata-document client (a hosted agent's every token request):
   * one statement over the shared pool, as ClientsRepository.findClientById does for registered
   * clients: through Prisma's query compiler it was a large share of the request's CPU.
   */
  async findClientState(id: string): Promise<StoredClientState | null> {
    const [row] = await query<StoredClientState>(this.prisma.pool, SELECT_CLIENT_STATE, [id]);
    return row ?? null;
  }
}
