import { Inject, Injectable } from '@nestjs/common';
import type { RateLimitStore } from '@platform/rate-limits';
import { RATE_LIMIT_STORE } from '../rate-limits/rate-limit-store';
import { CIMD_CONFIG, type CimdConfig } from '../config/cimd-config';
import { MetadataDocumentFetchLimitError } from './errors';

const WINDOW_MS = 60_000;

/**
 * How many documents (client ID metadata documents and the JWK Sets at jwks_uri) this server
 * fetches from one host per minute: CIMD_FETCHES_PER_HOST_PER_MINUTE, counted in the auth
 * server's shared counter store (Redis when REDIS_URL is set), so that the budget is one per
 * host for every instance together. Every distinct URL is a cache miss and failures are never
 * cached: without a budget anyone could have this server fetch one site as often as they like,
 * and with a budget per process, N instances would fetch N times as much.
 */
@Injectable()
export class HostFetchBudget {
  constructor(
    @Inject(CIMD_CONFIG) private readonly config: Pick<CimdConfig, 'fetchesPerHostPerMinute'>,
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
  ) {}

  /** Spends one fetch of `host` (host[:port]); throws MetadataDocumentFetchLimitError (429) when none is left. */
  async spend(host: string): Promise<void> {
    const spent = await this.store.hit(`cimd-fetch:${host}`, WINDOW_MS);
    if (spent.count > this.config.fetchesPerHostPerMinute) {
      throw new MetadataDocumentFetchLimitError(Math.max(1, Math.ceil(spent.resetInMs / 1000)));
    }
  }
}
