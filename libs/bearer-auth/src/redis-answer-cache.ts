import { Logger } from '@nestjs/common';
import { createClient, type RedisClientType } from 'redis';
import type { ResolvedBearerAuthOptions } from './options';

/** v2: entries carry their generation; an instance of the previous format would misread them. */
const ENTRY_PREFIX = 'bearer-auth:introspection:v2:';
const GENERATION_KEY = 'bearer-auth:generation';
const HEARTBEAT_MS = 1_000;
const WARNING_INTERVAL_MS = 10_000;

interface Entry<T> {
  /** The generation the entry was written in. */
  g: number;
  a: T;
}

/**
 * The Redis layer of the introspection cache, and the judge of whether anything cached may be
 * trusted. Revocation events travel over the same Redis, so while it is away they are lost:
 *  - from the first failed or unanswered command (or 'error' event) until Redis answers again,
 *    nothing cached is trusted (trustPeriod() is undefined) and this layer reads and writes
 *    nothing;
 *  - every (re)connection, the first one included, takes a new generation (INCR): entries
 *    written before it, by any instance, are ignored, and `onNewGeneration` lets the owner
 *    empty its in-process layer. A heartbeat carries a newer generation to the instances
 *    that had no outage of their own: they empty their in-process layer too, and share the
 *    cache again.
 * No clocks are compared.
 */
export class RedisAnswerCache<T> {
  private readonly logger = new Logger('TokenValidator');
  private readonly client: RedisClientType;
  private trusted = false;
  private generation = 0;
  /** Counts failures, so a recovery that raced with a new failure does not end the outage. */
  private failures = 0;
  private recovering?: Promise<void>;
  private heartbeat?: NodeJS.Timeout;
  private lastWarning = 0;

  constructor(
    url: string,
    private readonly options: ResolvedBearerAuthOptions,
    private readonly onNewGeneration: () => void,
  ) {
    this.client = createClient({
      url,
      // Fail fast instead of queueing while Redis is away: validation then goes around it.
      disableOfflineQueue: true,
      commandOptions: { timeout: options.redisTimeoutMs },
      socket: { connectTimeout: 1_000, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2_000) },
    });
    this.client.on('error', (error: Error) => this.failed(error));
    this.client.on('ready', () => void this.recover());
  }

  /** Connects in the background: until Redis answers, validation goes around it. */
  start(): void {
    this.client.connect().catch((error: Error) => this.warn(error.message));
    this.heartbeat = setInterval(() => void this.beat(), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.heartbeat);
    // close() waits for replies, which a frozen Redis never sends.
    if (this.client.isReady) await this.bounded(this.client.close()).catch(() => undefined);
    if (this.client.isOpen) this.client.destroy();
  }

  /**
   * Names the current stretch of trust (it changes with every outage), or undefined while
   * nothing cached may be used: an answer obtained during one stretch is cached only if the
   * stretch is still the current one.
   */
  trustPeriod(): number | undefined {
    return this.trusted ? this.failures : undefined;
  }

  async get(key: string): Promise<T | undefined> {
    if (!this.trusted) return undefined;
    try {
      const raw = await this.bounded(this.client.get(ENTRY_PREFIX + key));
      const entry = raw === null ? undefined : (JSON.parse(raw) as Partial<Entry<T>>);
      // Older generations may hold answers revoked while nobody listened.
      const answer = entry && typeof entry.g === 'number' && entry.g >= this.generation ? entry.a : undefined;
      this.options.metrics.cacheLookup('redis', answer === undefined ? 'miss' : 'hit');
      return answer;
    } catch (error) {
      this.failed(error as Error);
      return undefined;
    }
  }

  set(key: string, value: T, ttlMs: number): void {
    if (!this.trusted) return;
    const entry: Entry<T> = { g: this.generation, a: value };
    this.bounded(this.client.set(ENTRY_PREFIX + key, JSON.stringify(entry), { expiration: { type: 'PX', value: Math.ceil(ttlMs) } })).catch(
      (error: Error) => this.failed(error),
    );
  }

  /**
   * A delete that fails leaves the answer behind for an instance that missed the event; as an
   * outage, it ends with a new generation, which retires the entry everywhere.
   */
  async delete(keys: readonly string[]): Promise<void> {
    if (!this.client.isReady || keys.length === 0) return;
    await this.bounded(this.client.del(keys.map((key) => ENTRY_PREFIX + key))).catch((error: Error) => this.failed(error));
  }

  private failed(error: Error): void {
    this.failures++;
    this.trusted = false;
    this.warn(error.message);
  }

  private recover(): Promise<void> {
    this.recovering ??= this.takeNewGeneration().finally(() => (this.recovering = undefined));
    return this.recovering;
  }

  private async takeNewGeneration(): Promise<void> {
    const failuresBefore = this.failures;
    try {
      const generation = await this.bounded(this.client.incr(GENERATION_KEY));
      if (this.failures !== failuresBefore) return;
      this.onNewGeneration();
      this.generation = generation;
      this.trusted = true;
    } catch (error) {
      this.failed(error as Error);
    }
  }

  /**
   * Reading the generation doubles as a PING: it notices a Redis that keeps the connection
   * open and answers nothing (no 'error' then, and hot tokens send no command), ends an outage
   * once Redis answers again, and adopts the newer generation of an instance that recovered.
   */
  private async beat(): Promise<void> {
    if (!this.client.isReady) return;
    try {
      const current = Number(await this.bounded(this.client.get(GENERATION_KEY)));
      if (!this.trusted) await this.recover();
      else if (current > this.generation) {
        // Another instance lived through an outage this one did not notice; events may have
        // been lost for this one too (its subscriber shares the Redis): start afresh as well.
        this.onNewGeneration();
        this.generation = current;
      }
    } catch (error) {
      this.failed(error as Error);
    }
  }

  /** node-redis drops a command's timeout once it is written: the reply is raced here. */
  private bounded<R>(command: Promise<R>): Promise<R> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`Redis did not answer within ${this.options.redisTimeoutMs} ms`)), this.options.redisTimeoutMs);
    });
    return Promise.race([command, timeout]).finally(() => clearTimeout(timer));
  }

  /** At most one warning every 10 s, however many requests go around Redis. */
  private warn(message: string): void {
    const now = Date.now();
    if (now - this.lastWarning < WARNING_INTERVAL_MS) return;
    this.lastWarning = now;
    this.logger.warn(`Redis unavailable, validating through introspection: ${message}`);
  }
}
