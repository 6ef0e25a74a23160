import { type BeforeApplicationShutdown, type DynamicModule, Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { CALLER_ADMISSION } from '@platform/bearer-auth';
import { createRateLimitStore, type RateLimitStore, SharedFromSecondHit, type WindowCounter, windowCounterFor } from '@platform/rate-limits';
import type { ResourceConfig } from '../config/resource-config';
import { ResourceRequestLimits } from './resource-limits';

/** The resource server's counters: Redis shared by every instance when REDIS_URL is set, this process otherwise. */
export const RESOURCE_RATE_LIMIT_COUNTER = Symbol('RESOURCE_RATE_LIMIT_COUNTER');
const RESOURCE_RATE_LIMIT_STORE = Symbol('RESOURCE_RATE_LIMIT_STORE');

/** Adds what waits in this process to the store, then closes it, once the server has stopped taking requests. */
class CounterLifecycle implements BeforeApplicationShutdown, OnApplicationShutdown {
  constructor(
    @Inject(RESOURCE_RATE_LIMIT_COUNTER) private readonly counter: WindowCounter,
    @Inject(RESOURCE_RATE_LIMIT_STORE) private readonly store: RateLimitStore,
  ) {}

  async beforeApplicationShutdown(): Promise<void> {
    await this.counter.flush();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}

/**
 * The request limits of the API and /mcp (resource-limits.ts): global, so the bearer guard
 * finds its CALLER_ADMISSION, and /mcp's hook (mcp-limits.ts) the same limits.
 */
@Global()
@Module({})
export class ResourceRateLimitsModule {
  static register(config: ResourceConfig): DynamicModule {
    return {
      module: ResourceRateLimitsModule,
      providers: [
        {
          provide: RESOURCE_RATE_LIMIT_STORE,
          // Instances of one resource server share their counts; other servers on the same Redis keep theirs.
          useFactory: () => createRateLimitStore({ redisUrl: config.redisUrl, prefix: `resource-server:limits:${config.resource}:` }),
        },
        { provide: RESOURCE_RATE_LIMIT_COUNTER, useFactory: (store: RateLimitStore) => windowCounterFor(store), inject: [RESOURCE_RATE_LIMIT_STORE] },
        {
          provide: ResourceRequestLimits,
          // Keys hit once a minute (most users, most addresses) cost no round trip to Redis.
          useFactory: (counter: WindowCounter) => new ResourceRequestLimits(config.rateLimits, new SharedFromSecondHit(counter)),
          inject: [RESOURCE_RATE_LIMIT_COUNTER],
        },
        { provide: CALLER_ADMISSION, useExisting: ResourceRequestLimits },
        CounterLifecycle,
      ],
      exports: [ResourceRequestLimits, CALLER_ADMISSION],
    };
  }
}

/**
 * The application's root module with the request limits imported beside it (global, so the
 * bearer guard finds its CALLER_ADMISSION): the one place the server is assembled with them.
 */
export function withRequestLimits(root: DynamicModule, config: ResourceConfig): DynamicModule {
  return { ...root, imports: [...(root.imports ?? []), ResourceRateLimitsModule.register(config)] };
}
