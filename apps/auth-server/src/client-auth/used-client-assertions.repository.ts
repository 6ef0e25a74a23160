import { Injectable } from '@nestjs/common';
import { hashToken } from '../crypto/tokens';
import { query, statement, utc } from '../database/pg-pool';
import { PrismaService } from '../database/prisma.service';

/**
 * One statement decides, on every instance at once: the primary key refuses a second row for the
 * same (client_id, jti), so of two requests carrying one assertion exactly one inserts.
 */
const RECORD_USE = statement(
  'record_client_assertion_use',
  `INSERT INTO used_client_assertions (id_hash, expires_at) VALUES ($1, $2)
  ON CONFLICT (id_hash) DO NOTHING RETURNING id_hash`,
);

/**
 * The jti of every client assertion accepted (RFC 7523 §3: the server "MAY ensure that JWTs are
 * not replayed by maintaining the set of used jti values for the length of time for which the JWT
 * would be considered valid"). Kept in PostgreSQL, which every instance shares; the clean-up job
 * removes rows once the assertion could no longer be accepted anyway (maintenance/).
 */
@Injectable()
export class UsedClientAssertions {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Records the assertion's use; false when it was used before. The jti is only unique per
   * client (its issuer), so the key is the hash of both; hashed, as neither needs to be read back.
   */
  async recordFirstUse(clientId: string, jti: string, acceptedUntil: Date): Promise<boolean> {
    const rows = await query(this.prisma.pool, RECORD_USE, [hashToken(JSON.stringify([clientId, jti])), utc(acceptedUntil)]);
    return rows.length === 1;
  }
}
