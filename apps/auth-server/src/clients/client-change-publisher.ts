import { Logger } from '@nestjs/common';
import { CLIENT_CHANGED_CHANNEL, type ClientChangedEvent } from '@platform/contracts';
import type { EventBus } from '@platform/event-bus';

/**
 * Announces a change the clients CLI made to a registered client, so every authorization server
 * drops the row it holds (HeldClients). A failed publish is logged, not fatal: the change is
 * committed, and held rows expire within a minute.
 */
export class ClientChangePublisher {
  private readonly logger = new Logger(ClientChangePublisher.name);

  constructor(private readonly bus: EventBus) {}

  async announce(clientId: string, change: ClientChangedEvent['change']): Promise<void> {
    const event: ClientChangedEvent = { clientId, change, at: Date.now() };
    try {
      await this.bus.publish(CLIENT_CHANGED_CHANNEL, event);
    } catch (error) {
      this.logger.error(`could not announce that client ${clientId} was ${change.replace('_', ' ')}: ${(error as Error).message}`);
    }
  }
}
