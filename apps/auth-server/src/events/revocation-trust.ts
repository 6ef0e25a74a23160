import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { BusTrust, EVENT_BUS, type EventBus } from '@platform/event-bus';

/**
 * Whether this instance hears every event that could drop what it holds in memory (the live
 * access tokens and the registered clients, both HeldUnderTrust), so that it may be used: the
 * bus's own judge (BusTrust, the one the resource servers' answer cache uses), started and
 * stopped with the module.
 */
@Injectable()
export class RevocationTrust extends BusTrust implements OnModuleInit, OnModuleDestroy {
  constructor(@Inject(EVENT_BUS) bus: EventBus) {
    super(bus, { name: 'auth-server', holds: 'in-memory token state' });
  }

  onModuleInit(): Promise<void> {
    return this.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.stop();
  }
}
