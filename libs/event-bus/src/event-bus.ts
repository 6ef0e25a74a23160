export type EventHandler<T> = (payload: T) => void;

/**
 * Publish/subscribe between services. Redis pub/sub in the real mode; an in-process
 * stand-in when REDIS_URL is unset (see LocalEventBus).
 */
export interface EventBus {
  publish<T>(channel: string, payload: T): Promise<void>;
  /** Resolves once the subscription is active; the returned function ends it. */
  subscribe<T>(channel: string, handler: EventHandler<T>): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export const EVENT_BUS = Symbol('EVENT_BUS');
