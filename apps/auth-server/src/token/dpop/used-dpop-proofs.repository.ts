import { Inject, Injectable } from '@nestjs/common';
import type { DpopReplayGuard } from '@platform/dpop';
import type { Pool } from 'pg';
import { PG_POOL, query, statement, utc } from '../../database/pg-pool';

/**
 * One statement decides, on every instance at once: the primary key refuses a second row for the
 * same proof, so of two requests carrying one proof exactly one inserts.
 */
const RECORD_USE = statement(
  'record_dpop_proof_use',
  `INSERT INTO used_dpop_proofs (id_hash, expires_at) VALUES ($1, $2)
  ON CONFLICT (id_hash) DO NOTHING RETURNING id_hash`,
);

/**
 * The DPoP proofs accepted at the token endpoint (RFC 9449 §11.1: the server "MUST" ensure "that the
 * same proof is not used more than once", by its jti, for the time the proof is acceptable). Kept in
 * PostgreSQL, which every instance shares; the clean-up job removes rows once the proof could no
 * longer be accepted anyway (maintenance/). The key is already a hash (of the key's thumbprint and
 * the jti, @platform/dpop): nothing of the proof can be read back.
 */
@Injectable()
export class UsedDpopProofs implements DpopReplayGuard {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  async firstUse(key: string, expiresAt: Date): Promise<boolean> {
    const rows = await query(this.pool, RECORD_USE, [key, utc(expiresAt)]);
    return rows.length === 1;
  }
}
