export type EventHandler<T> = (payload: T) => void;

/**
 * Publish/subscribe between services. Redis pub/sub in the real mode; an in-process
 * stand-in when REDIS_URL is unset (see LocalEventBus).
 */
export interface EventBus {
  publish<T>(channel: string, payload: T): Promise<void>;
  /** Resolves once the subscription is active; the returned function ends it. */
  subscribe<T>(channel: string, handler: EventHandler<T>): Promise<() => Promise<void>>;
  /**
   * Called when the subscriptions are back after they were down: messages published meanwhile
   * are lost (pub/sub keeps nothing), and a subscriber that relied on them must start afresh.
   * Only buses that can lose messages implement it.
   */
  onMissedMessages?(handler: () => void): void;
  close(): Promise<void>;
}

export const EVENT_BUS = Symbol('EVENT_BUS');
