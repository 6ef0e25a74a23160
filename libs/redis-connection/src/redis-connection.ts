import { Logger } from '@nestjs/common';
import { createClient, type RedisClientType } from 'redis';
import { withDeadline } from './deadline';

/** How long one connection attempt (TCP and handshake) may take. */
export const CONNECT_TIMEOUT_MS = 1_000;
/** close() waits for replies still due; a frozen Redis never sends them. */
const CLOSE_DEADLINE_MS = 200;
const WARNING_INTERVAL_MS = 10_000;

/** The one reconnect curve: 100 ms, doubling, then every 2 s, for as long as the process runs. */
export function reconnectDelay(retries: number): number {
  return Math.min(100 * 2 ** retries, 2_000);
}

/**
 * The Redis connections of one process, for one URL: two at most, shared by every user.
 *  - commands: one connection. node-redis pipelines commands on one socket, in order, so the
 *    event bus's PUBLISH, the rate-limit scripts, the introspection cache and the readiness PING
 *    share it; each bounds its own wait (command(), withDeadline). It fails fast while Redis is
 *    away (no offline queue): every user has its own way around Redis meanwhile.
 *  - pub/sub: one more, opened on the first subscribe(), because a connection in subscriber mode
 *    takes no other command (RESP2). It keeps an offline queue, so a SUBSCRIBE made while Redis
 *    is away is sent on reconnection (node-redis re-subscribes what was subscribed by itself).
 * Both reconnect by themselves on reconnectDelay. The connections close when the last user
 * releases its lease, so two services (or two instances in a test) of one process share them
 * too, and each closes what it acquired.
 */
export class RedisConnection {
  private static readonly byUrl = new Map<string, SharedConnection>();
  private released = false;

  private constructor(private readonly shared: SharedConnection) {}

  /** A lease on this process's connections to `url`; connecting starts in the background. */
  static acquire(url: string): RedisConnection {
    let shared = RedisConnection.byUrl.get(url);
    if (!shared) {
      shared = new SharedConnection(url);
      RedisConnection.byUrl.set(url, shared);
    }
    shared.leases++;
    return new RedisConnection(shared);
  }

  /** The commands connection, for listening to its 'ready' and 'error' events. */
  get client(): RedisClientType {
    return this.shared.client;
  }

  get isReady(): boolean {
    return this.shared.client.isReady;
  }

  /** Resolves once connected (node-redis retries until then). */
  connected(): Promise<void> {
    return this.shared.connecting;
  }

  /** true once connected; false at the next failed attempt if it fails first. */
  firstOutcome(): Promise<boolean> {
    const client = this.shared.client;
    if (client.isReady) return Promise.resolve(true);
    return new Promise((resolve) => {
      const settle = (outcome: boolean) => {
        client.off('ready', onReady);
        client.off('error', onError);
        resolve(outcome);
      };
      const onReady = () => settle(true);
      const onError = () => settle(false);
      client.on('ready', onReady);
      client.on('error', onError);
    });
  }

  /**
   * Sends a command on the commands connection with a deadline (withDeadline): rejects at once
   * while the connection is down, rather than queueing behind the reconnection.
   */
  command<T>(send: (client: RedisClientType, abortSignal: AbortSignal) => Promise<T>, deadlineMs: number): Promise<T> {
    const client = this.shared.client;
    if (!client.isReady) return Promise.reject(new Error('Redis is not connected'));
    return withDeadline((abortSignal) => send(client, abortSignal), deadlineMs);
  }

  /** The pub/sub connection, opened (and awaited) on first use. */
  subscriber(): Promise<RedisClientType> {
    return this.shared.subscriber();
  }

  /** Ends this lease; the last one closes the connections. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    if (--this.shared.leases > 0) return;
    if (RedisConnection.byUrl.get(this.shared.url) === this.shared) RedisConnection.byUrl.delete(this.shared.url);
    await this.shared.close();
  }
}

class SharedConnection {
  readonly client: RedisClientType;
  readonly connecting: Promise<void>;
  leases = 0;
  private subscribing?: Promise<RedisClientType>;
  private subscriberClient?: RedisClientType;
  private readonly logger = new Logger('Redis');
  private lastWarning = 0;

  constructor(readonly url: string) {
    this.client = createClient({
      url,
      disableOfflineQueue: true,
      // No per-command timeout (node-redis 6 defaults to 5 s, with an AbortSignal.timeout per
      // command): every user bounds its waits with withDeadline instead.
      commandOptions: { timeout: 0 },
      socket: { connectTimeout: CONNECT_TIMEOUT_MS, reconnectStrategy: reconnectDelay },
    }) as RedisClientType;
    this.client.on('error', (error: Error) => this.warn('commands', error));
    this.connecting = this.client.connect().then(() => undefined);
    // A connection destroyed before it ever connected: whoever waits on connected() hears it.
    this.connecting.catch(() => undefined);
  }

  subscriber(): Promise<RedisClientType> {
    this.subscribing ??= (async () => {
      const subscriber = this.client.duplicate({ disableOfflineQueue: false });
      subscriber.on('error', (error: Error) => this.warn('pub/sub', error));
      this.subscriberClient = subscriber;
      await subscriber.connect();
      return subscriber;
    })();
    return this.subscribing;
  }

  async close(): Promise<void> {
    await Promise.all([closeClient(this.subscriberClient), closeClient(this.client)]);
  }

  /** At most one warning every 10 s, however often node-redis retries. */
  private warn(connection: string, error: Error): void {
    const now = Date.now();
    if (now - this.lastWarning < WARNING_INTERVAL_MS) return;
    this.lastWarning = now;
    this.logger.warn(`${connection} connection: ${error.message || error.name}`);
  }
}

async function closeClient(client: RedisClientType | undefined): Promise<void> {
  if (!client) return;
  if (client.isReady) await withDeadline(() => client.close(), CLOSE_DEADLINE_MS).catch(() => undefined);
  if (client.isOpen) client.destroy();
}
