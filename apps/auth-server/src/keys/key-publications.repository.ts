import { Injectable } from '@nestjs/common';
import type { JWK } from 'jose';
import { PrismaService } from '../database/prisma.service';

/** A configured key as published: its public JWK, and for how long it has been (the database's clock). */
export interface Publication {
  kid: string;
  publicJwk: JWK;
  publishedForMs: number;
}

/**
 * signing_key_publications: which signing keys the replicas publish, since when. Every time is
 * the database's (LOCALTIMESTAMP, the type of the columns), so replicas whose clocks differ
 * agree on a key's age.
 */
@Injectable()
export class KeyPublications {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Records that this replica publishes these keys: a key seen for the first time starts its
   * activation delay now, one seen before keeps it (and the public JWK it was first published
   * with, which the caller compares). Returns each key as recorded.
   */
  async publish(keys: readonly { kid: string; publicJwk: JWK }[]): Promise<Publication[]> {
    const recorded: Publication[] = [];
    for (const key of keys) {
      const [row] = await this.prisma.$queryRaw<{ kid: string; public_jwk: JWK; published_for_ms: number }[]>`
        INSERT INTO signing_key_publications (kid, public_jwk, first_published_at, last_configured_at)
        VALUES (${key.kid}, ${JSON.stringify(key.publicJwk)}::jsonb, LOCALTIMESTAMP, LOCALTIMESTAMP)
        ON CONFLICT (kid) DO UPDATE SET last_configured_at = LOCALTIMESTAMP
        RETURNING kid, public_jwk, GREATEST(0, EXTRACT(EPOCH FROM LOCALTIMESTAMP - first_published_at) * 1000)::float8 AS published_for_ms`;
      // GREATEST: the column keeps milliseconds and LOCALTIMESTAMP microseconds, so a key published
      // by this very statement may read as up to half a millisecond in the future (rounded up).
      recorded.push({ kid: row.kid, publicJwk: row.public_jwk, publishedForMs: Number(row.published_for_ms) });
    }
    return recorded;
  }

  /** The public JWKs some replica has been configured with within the last `retentionSeconds`. */
  async current(retentionSeconds: number): Promise<JWK[]> {
    const rows = await this.prisma.$queryRaw<{ public_jwk: JWK }[]>`
      SELECT public_jwk FROM signing_key_publications
      WHERE last_configured_at > LOCALTIMESTAMP - make_interval(secs => ${retentionSeconds}::float8)
      ORDER BY first_published_at DESC, kid`;
    return rows.map((row) => row.public_jwk);
  }
}
