import { Logger } from '@nestjs/common';
import { RedisConnection, withDeadline } from '@platform/redis-connection';
import type { RedisClientType } from 'redis';
import type { EventBus, EventHandler } from './event-bus';

const logger = new Logger('RedisEventBus');

/** How long a publish may wait for Redis before the caller goes on without it. */
export const PUBLISH_DEADLINE_MS = 1_000;
/** UNSUBSCRIBE at close: a frozen Redis never answers it. */
const UNSUBSCRIBE_DEADLINE_MS = 200;

/**
 * Redis pub/sub on the process's Redis connections (RedisConnection): PUBLISH on the shared
 * commands connection, SUBSCRIBE on the pub/sub one. Both reconnect by themselves.
 */
export class RedisEventBus implements EventBus {
  private readonly redis: RedisConnection;
  private subscriber?: RedisClientType;
  private readonly subscriptions = new Set<{ channel: string; listener: (message: string) => void }>();
  private readonly missedMessageHandlers: (() => void)[] = [];
  /** The subscriber connection failed since it was last ready: messages may have been lost. */
  private subscriberInterrupted = false;
  private readonly onSubscriberError = () => {
    this.subscriberInterrupted = true;
  };
  // node-redis re-subscribes by itself after reconnecting; what was published meanwhile is gone.
  private readonly onSubscriberReady = () => {
    if (!this.subscriberInterrupted) return;
    this.subscriberInterrupted = false;
    logger.warn('subscriber reconnected: messages published while it was away are lost');
    for (const handler of this.missedMessageHandlers) handler();
  };

  constructor(url: string) {
    this.redis = RedisConnection.acquire(url);
  }

  /** Resolves once Redis is connected (it waits for Redis to come up). */
  async connect(): Promise<this> {
    await this.redis.connected();
    return this;
  }

  /**
   * Rejects at once while the connection is down, and after PUBLISH_DEADLINE_MS when Redis is
   * frozen, so that a revocation never waits on Redis. The message may then be lost (or arrive
   * late): subscribers must not rely on every message arriving (BusTrust says when they may).
   */
  async publish<T>(channel: string, payload: T): Promise<void> {
    await this.redis.command(
      (client, abortSignal) => client.sendCommand(['PUBLISH', channel, JSON.stringify(payload)], { abortSignal }),
      PUBLISH_DEADLINE_MS,
    );
  }

  async subscribe<T>(channel: string, handler: EventHandler<T>): Promise<() => Promise<void>> {
    if (!this.subscriber) {
      const subscriber = await this.redis.subscriber();
      if (!this.subscriber) {
        this.subscriber = subscriber;
        subscriber.on('error', this.onSubscriberError);
        subscriber.on('ready', this.onSubscriberReady);
      }
    }
    const listener = (message: string) => {
      try {
        handler(JSON.parse(message) as T);
      } catch (error) {
        logger.warn(`dropped a malformed message on ${channel}: ${(error as Error).message}`);
      }
    };
    const subscription = { channel, listener };
    await this.subscriber.subscribe(channel, listener);
    this.subscriptions.add(subscription);
    return () => this.unsubscribe(subscription);
  }

  onMissedMessages(handler: () => void): void {
    this.missedMessageHandlers.push(handler);
  }

  /** Ends this bus's subscriptions (the pub/sub connection may serve others) and its lease. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.subscriptions].map((subscription) => this.unsubscribe(subscription)));
    this.subscriber?.off('error', this.onSubscriberError);
    this.subscriber?.off('ready', this.onSubscriberReady);
    await this.redis.release();
  }

  private async unsubscribe(subscription: { channel: string; listener: (message: string) => void }): Promise<void> {
    if (!this.subscriptions.delete(subscription) || !this.subscriber) return;
    const subscriber = this.subscriber;
    await withDeadline(() => subscriber.unsubscribe(subscription.channel, subscription.listener), UNSUBSCRIBE_DEADLINE_MS);
  }
}
