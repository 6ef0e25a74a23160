export { EVENT_BUS, type EventBus, type EventHandler } from './event-bus';
export { BusTrust, type BusTrustOptions } from './bus-trust';
export { LocalEventBus } from './local-event-bus';
export { RedisEventBus } from './redis-event-bus';

import type { EventBus } from './event-bus';
import { LocalEventBus } from './local-event-bus';
import { RedisEventBus } from './redis-event-bus';

/** Redis pub/sub when a URL is configured, the in-process bus otherwise. */
export async function createEventBus(redisUrl: string | undefined): Promise<EventBus> {
  return redisUrl ? new RedisEventBus(redisUrl).connect() : new LocalEventBus();
}
