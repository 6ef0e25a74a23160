import { Injectable } from '@nestjs/common';
import { HeldUnderTrust } from '@platform/held-under-trust';
import { RevocationTrust } from '../events/revocation-trust';
import type { ActiveAccessTokenRow } from './token-rows';

/**
 * Live tokens held at most; the least recently used go first. As many as a resource server's
 * in-process layer: every token is held at issuance, so a larger bound fills up under refresh
 * chains and grows the auth server's memory with it.
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
 * keep theirs), keyed by the token's hash: filled when a token is issued and when it is first
 * looked up; evicted by revocation events (RevocationSubscriber) and by this instance's own
 * revocations; never held past the token's exp nor past TTL_CEILING_MS. Held under trust
 * (@platform/held-under-trust): while revocation events may be being lost (RevocationTrust),
 * every lookup reads the database and nothing is kept.
 */
@Injectable()
export class ActiveAccessTokens {
  private readonly held: HeldUnderTrust<ActiveAccessTokenRow>;

  constructor(trust: RevocationTrust) {
    this.held = new HeldUnderTrust(trust, {
      max: MAX_ENTRIES,
      ttlMs: TTL_CEILING_MS,
      ttlOf: (token) => token.expiresAt.getTime() - Date.now(),
      maxDropped: MAX_TOMBSTONES,
    });
  }

  /** The held token of this hash, else what `load` reads from the database (then held). */
  read(tokenHash: string, load: () => Promise<ActiveAccessTokenRow | null>): Promise<ActiveAccessTokenRow | null> {
    return this.held.read(tokenHash, load);
  }

  /** Runs a statement that issues tokens and holds the access token it issued (`issued`: null for none). */
  afterIssue<R>(issue: () => Promise<R>, issued: (result: R) => ActiveAccessTokenRow | null): Promise<R> {
    return this.held.afterWrite(issue, (result) => {
      const token = issued(result);
      return token && { key: token.tokenHash, value: token };
    });
  }

  /** Revoked: dropped at once, and kept out while lookups that began before are still under way. */
  evict(tokenHashes: readonly string[]): void {
    for (const hash of tokenHashes) this.held.drop(hash);
  }
}
