import { Logger } from '@nestjs/common';
import { createClient, type RedisClientType } from 'redis';
import type { EventBus, EventHandler } from './event-bus';

const logger = new Logger('RedisEventBus');

/** How long a publish may wait for Redis before the caller goes on without it. */
export const PUBLISH_DEADLINE_MS = 1_000;

/**
 * Redis pub/sub. A subscriber connection cannot issue other commands, so publishing and
 * subscribing use two connections; both reconnect by themselves after an outage.
 */
export class RedisEventBus implements EventBus {
  private readonly publisher: RedisClientType;
  private subscriber?: RedisClientType;
  private readonly missedMessageHandlers: (() => void)[] = [];
  /** The subscriber connection failed since it was last ready: messages may have been lost. */
  private subscriberInterrupted = false;

  constructor(private readonly url: string) {
    this.publisher = createClient({ url, socket: { reconnectStrategy: reconnectDelay } });
    this.publisher.on('error', (error: Error) => logger.warn(`publisher: ${error.message}`));
  }

  async connect(): Promise<this> {
    await this.publisher.connect();
    return this;
  }

  /**
   * Rejects at once while the connection is down, and after PUBLISH_DEADLINE_MS when Redis is
   * frozen, so that a revocation never waits on Redis. The message may then be lost (or arrive
   * late): subscribers must not rely on every message arriving, and the resource servers drop
   * their cached answers when their own Redis connection comes back.
   */
  async publish<T>(channel: string, payload: T): Promise<void> {
    if (!this.publisher.isReady) throw new Error('Redis is not connected');
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`Redis did not take the message within ${PUBLISH_DEADLINE_MS} ms`)), PUBLISH_DEADLINE_MS);
    });
    const sent = this.publisher.publish(channel, JSON.stringify(payload));
    sent.catch(() => undefined);
    try {
      await Promise.race([sent, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  async subscribe<T>(channel: string, handler: EventHandler<T>): Promise<() => Promise<void>> {
    if (!this.subscriber) {
      this.subscriber = this.publisher.duplicate();
      this.subscriber.on('error', (error: Error) => {
        this.subscriberInterrupted = true;
        logger.warn(`subscriber: ${error.message}`);
      });
      // node-redis re-subscribes by itself after reconnecting; what was published meanwhile is gone.
      this.subscriber.on('ready', () => {
        if (!this.subscriberInterrupted) return;
        this.subscriberInterrupted = false;
        logger.warn('subscriber reconnected: messages published while it was away are lost');
        for (const handler of this.missedMessageHandlers) handler();
      });
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

  onMissedMessages(handler: () => void): void {
    this.missedMessageHandlers.push(handler);
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.subscriber?.close(), this.publisher.close()]);
  }
}

function reconnectDelay(retries: number): number {
  return Math.min(50 * 2 ** retries, 2_000);
}
