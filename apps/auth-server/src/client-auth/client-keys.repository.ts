import { Injectable } from '@nestjs/common';
import type { JSONWebKeySet } from 'jose';
import type { ClientKeySource } from '../clients/client-key-source';
import { query, statement } from '../database/pg-pool';
import { PrismaService } from '../database/prisma.service';

const SELECT_KEYS = statement('select_client_keys', `SELECT jwks, jwks_uri AS "jwksUri" FROM clients WHERE id = $1`);

/**
 * The keys of a registered private_key_jwt client (a staff integration), read when it
 * authenticates: one indexed read, only for these clients, never held in memory, so keys staff
 * replace (npm run clients -- set-keys) count from the next request on every instance.
 */
@Injectable()
export class ClientKeysRepository {
  constructor(private readonly prisma: PrismaService) {}

  async findKeySource(clientId: string): Promise<ClientKeySource | null> {
    const [row] = await query<{ jwks: JSONWebKeySet | null; jwksUri: string | null }>(this.prisma.pool, SELECT_KEYS, [clientId]);
    if (row?.jwksUri) return { jwksUri: row.jwksUri };
    if (row?.jwks) return { jwks: row.jwks };
    return null;
  }
}
