import { Logger } from '@nestjs/common';
import type { DpopReplayGuard } from '@platform/dpop';
import { RedisConnection } from '@platform/redis-connection';
import { LRUCache } from 'lru-cache';

const KEY_PREFIX = 'bearer-auth:dpop-proof:';
const WARNING_INTERVAL_MS = 10_000;

/**
 * The proofs this process has seen, each until its iat leaves the accepted window: the embedded,
 * single-instance mode's store. Bounded: past `max` live entries the least recently seen go
 * first, so the single use holds up to `max` proofs per window (100,000 a minute by default).
 */
export class InProcessDpopReplayGuard implements DpopReplayGuard {
  private readonly seen: LRUCache<string, true>;

  constructor(max: number) {
    this.seen = new LRUCache({ max });
  }

  async firstUse(key: string, expiresAt: Date): Promise<boolean> {
    if (this.seen.has(key)) return false;
    this.seen.set(key, true, { ttl: Math.max(1, expiresAt.getTime() - Date.now()) });
    return true;
  }
}

/**
 * Every replica's proofs in Redis: `SET key 1 NX PXAT expiresAt`, one round trip, atomic, so two
 * replicas given the same proof at once accept it once. While Redis does not answer (within the
 * bearer cache's Redis deadline) the in-process guard stands in: a proof is still single use on
 * this replica, not across replicas. RFC 9449 §11.1 asks for the jti check "within a reasonable
 * consideration of accuracy and resource utilization"; refusing every DPoP request while Redis
 * is away (bearer tokens still being accepted) would punish the clients that did more.
 */
export class RedisDpopReplayGuard implements DpopReplayGuard {
  private readonly logger = new Logger('DpopReplayGuard');
  private readonly redis: RedisConnection;
  private lastWarning = 0;

  constructor(
    url: string,
    private readonly timeoutMs: number,
    private readonly fallback: DpopReplayGuard,
  ) {
    this.redis = RedisConnection.acquire(url);
  }

  async firstUse(key: string, expiresAt: Date): Promise<boolean> {
    try {
      const answer = await this.redis.command(
        (client, abortSignal) => client.sendCommand(['SET', KEY_PREFIX + key, '1', 'NX', 'PXAT', String(expiresAt.getTime())], { abortSignal }) as Promise<string | null>,
        this.timeoutMs,
      );
      return answer === 'OK';
    } catch (error) {
      this.warn((error as Error).message);
      return this.fallback.firstUse(key, expiresAt);
    }
  }

  /** Once connected, or failed to once: proofs checked before then are single use on this instance only. */
  async started(): Promise<void> {
    await this.redis.firstOutcome();
  }

  stop(): Promise<void> {
    return this.redis.release();
  }

  private warn(message: string): void {
    const now = Date.now();
    if (now - this.lastWarning < WARNING_INTERVAL_MS) return;
    this.lastWarning = now;
    this.logger.warn(`Redis unavailable, DPoP proofs are single use on this instance only: ${message}`);
  }
}
