import { Injectable } from '@nestjs/common';
import { HeldUnderTrust } from '../events/held-under-trust';
import { RevocationTrust } from '../events/revocation-trust';
import { type ActiveAccessTokenRow, TokenQueries } from './token-queries';

/**
 * Live tokens held at most; the least recently used go first. As many as a resource server's
 * in-process layer: the bench's refresh chains (~1,100 tokens issued per second, each held at
 * issuance) filled a bound of 100,000 and took the auth server to 439 MB RSS (heap after GC 125 MB).
 */
const MAX_ENTRIES = 10_000;
/** Hashes revoked recently (a few dozen bytes each): a revocation burst must not forget one early. */
const MAX_TOMBSTONES = 100_000;
/**
 * The longest an entry is held, whatever the token's lifetime: a revocation whose event could
 * not be published at all (Redis refused the publish while this instance still heard its own
 * heartbeats) is honoured here after at most this long.
 */
const TTL_CEILING_MS = 60_000;

/**
 * The live access tokens, as introspection answers them, held in memory (as Keycloak and Hydra
 * keep theirs): filled when a token is issued and when it is first looked up, keyed by the
 * token's hash; evicted by revocation events (RevocationSubscriber) and by this instance's own
 * revocations; never held past the token's exp nor past TTL_CEILING_MS. While revocation events
 * may be being lost (RevocationTrust), every lookup reads the database and nothing is kept,
 * and trust comes back with an empty map.
 */
@Injectable()
export class ActiveAccessTokens {
  private readonly held: HeldUnderTrust<ActiveAccessTokenRow>;

  constructor(
    private readonly queries: TokenQueries,
    trust: RevocationTrust,
  ) {
    this.held = new HeldUnderTrust(trust, { max: MAX_ENTRIES, maxDropped: MAX_TOMBSTONES, ttlMs: TTL_CEILING_MS });
  }

  /** The live access token of this hash, or null. */
  async findByHash(tokenHash: string, now = new Date()): Promise<ActiveAccessTokenRow | null> {
    const period = this.held.period();
    const held = this.held.get(tokenHash);
    if (held && held.expiresAt > now) return held;
    const token = await this.queries.findActiveAccessTokenByHash(tokenHash, now);
    if (token) this.remember(token, period);
    return token;
  }

  /** The trust period to pass to remember() for a row about to be read or written. */
  trustPeriod(): number | undefined {
    return this.held.period();
  }

  /**
   * Holds a live token read or written while `period` was current, unless trust changed
   * meanwhile (an event may have been lost) or the token was revoked meanwhile; never past its exp.
   */
  remember(token: ActiveAccessTokenRow, period: number | undefined): void {
    this.held.hold(token.tokenHash, token, period, token.expiresAt.getTime() - Date.now());
  }

  /** Revoked: dropped at once, and kept out while lookups that began before are still under way. */
  evict(tokenHashes: readonly string[]): void {
    for (const hash of tokenHashes) this.held.drop(hash);
  }
}
