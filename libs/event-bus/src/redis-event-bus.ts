import { Logger } from '@nestjs/common';
import { createClient, type RedisClientType } from 'redis';
import type { EventBus, EventHandler } from './event-bus';

const logger = new Logger('RedisEventBus');

/**
 * Redis pub/sub. A subscriber connection cannot issue other commands, so publishing and
 * subscribing use two connections; both reconnect by themselves after an outage.
 */
export class RedisEventBus implements EventBus {
  private readonly publisher: RedisClientType;
  private subscriber?: RedisClientType;

  constructor(private readonly url: string) {
    this.publisher = createClient({ url, socket: { reconnectStrategy: reconnectDelay } });
    this.publisher.on('error', (error: Error) => logger.warn(`publisher: ${error.message}`));
  }

  async connect(): Promise<this> {
    await this.publisher.connect();
    return this;
  }

  async publish<T>(channel: string, payload: T): Promise<void> {
    await this.publisher.publish(channel, JSON.stringify(payload));
  }

  async subscribe<T>(channel: string, handler: EventHandler<T>): Promise<() => Promise<void>> {
    if (!this.subscriber) {
      this.subscriber = this.publisher.duplicate();
      this.subscriber.on('error', (error: Error) => logger.warn(`subscriber: ${error.message}`));
      await this.subscriber.connect();
    }
    const listener = (message: string) => {
      try {
        handler(JSON.parse(message) as T);
      } catch (error) {
        logger.warn(`dropped a malformed message on ${channel}: ${(error as Error).message}`);
      }
    };
    await this.subscriber.subscribe(channel, listener);
    const subscriber = this.subscriber;
    return async () => {
      await subscriber.unsubscribe(channel, listener);
    };
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.subscriber?.close(), this.publisher.close()]);
  }
}

function reconnectDelay(retries: number): number {
  return Math.min(50 * 2 ** retries, 2_000);
}
