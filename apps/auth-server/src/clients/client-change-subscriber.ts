import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { CLIENT_CHANGED_CHANNEL, type ClientChangedEvent } from '@platform/contracts';
import { EVENT_BUS, type EventBus } from '@platform/event-bus';
import { HeldClients } from './held-clients';

/** Drops a registered client from memory when the clients CLI announces a change to it. */
@Injectable()
export class ClientChangeSubscriber implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ClientChangeSubscriber.name);
  private unsubscribe?: () => Promise<void>;

  constructor(
    @Inject(EVENT_BUS) private readonly bus: EventBus,
    private readonly clients: HeldClients,
  ) {}

  async onModuleInit(): Promise<void> {
    this.unsubscribe = await this.bus.subscribe<ClientChangedEvent>(CLIENT_CHANGED_CHANNEL, (event) => {
      if (typeof event?.clientId !== 'string') {
        this.logger.warn('ignored a client change event without clientId');
        return;
      }
      this.clients.evict(event.clientId);
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.unsubscribe?.().catch(() => undefined);
  }
}
