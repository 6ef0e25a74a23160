import { Logger } from '@nestjs/common';
import { RedisConnection } from '@platform/redis-connection';
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
 * The Redis layer of the introspection cache, on the process's shared Redis connection.
 * Whether anything cached may be trusted at all (no revocation event missed) is BusTrust's to
 * say; this layer says whether its shared entries may be read and written:
 *  - from the first failed or unanswered command (or 'error' event) until Redis answers again,
 *    it reads and writes nothing, and reports the failure (`onFailure`: the owner tells
 *    BusTrust, since revocation events travel over the same Redis);
 *  - every (re)connection, the first one included, takes a new generation (INCR): entries
 *    written before it, by any instance, are ignored, and `onNewGeneration` lets the owner
 *    empty its in-process layer. A heartbeat carries a newer generation to the instances
 *    that had no outage of their own: they empty their in-process layer too, and share the
 *    cache again.
 * No clocks are compared.
 */
export class RedisAnswerCache<T> {
  private readonly logger = new Logger('TokenValidator');
  private redis?: RedisConnection;
  private usable = false;
  private generation = 0;
  /** Changes with every failure and every generation: an answer is written only in the epoch it was asked in. */
  private epoch = 0;
  private recovering?: Promise<void>;
  private heartbeat?: NodeJS.Timeout;
  private lastWarning = 0;
  private readonly onError = (error: Error) => this.failed(error);
  private readonly onReady = () => void this.recover();

  constructor(
    private readonly url: string,
    private readonly options: ResolvedBearerAuthOptions,
    private readonly onFailure: (reason: string) => void,
    private readonly onNewGeneration: () => void,
  ) {}

  /** Connects in the background: until Redis answers, validation goes around it. */
  start(): void {
    if (this.redis) return;
    const redis = RedisConnection.acquire(this.url);
    this.redis = redis;
    redis.client.on('error', this.onError);
    redis.client.on('ready', this.onReady);
    if (redis.isReady) void this.recover();
    this.heartbeat = setInterval(() => void this.beat(), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.heartbeat);
    const redis = this.redis;
    if (!redis) return;
    this.redis = undefined;
    this.usable = false;
    redis.client.off('error', this.onError);
    redis.client.off('ready', this.onReady);
    await redis.release();
  }

  /**
   * Names the current stretch in which shared entries may be used (it changes with every
   * failure and generation), or undefined while they may not: an answer obtained during one
   * stretch is written only if the stretch is still the current one.
   */
  currentEpoch(): number | undefined {
    return this.usable ? this.epoch : undefined;
  }

  async get(key: string): Promise<T | undefined> {
    if (!this.usable) return undefined;
    try {
      const raw = await this.send<string | null>(['GET', ENTRY_PREFIX + key]);
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

  /** Writes an answer asked for in `epoch` (currentEpoch() before asking), if that is still the current one. */
  set(key: string, value: T, ttlMs: number, epoch: number | undefined): void {
    if (!this.usable || epoch !== this.epoch) return;
    const entry: Entry<T> = { g: this.generation, a: value };
    this.send(['SET', ENTRY_PREFIX + key, JSON.stringify(entry), 'PX', String(Math.ceil(ttlMs))]).catch((error: Error) => this.failed(error));
  }

  /**
   * A delete that fails leaves the answer behind for an instance that missed the event; as an
   * outage, it ends with a new generation, which retires the entry everywhere.
   */
  async delete(keys: readonly string[]): Promise<void> {
    if (!this.redis?.isReady || keys.length === 0) return;
    await this.send(['DEL', ...keys.map((key) => ENTRY_PREFIX + key)]).catch((error: Error) => this.failed(error));
  }

  private send<R>(args: string[]): Promise<R> {
    const redis = this.redis;
    if (!redis) return Promise.reject(new Error('the cache is stopped'));
    return redis.command((client, abortSignal) => client.sendCommand(args, { abortSignal }) as Promise<R>, this.options.redisTimeoutMs);
  }

  private failed(error: Error): void {
    this.epoch++;
    this.usable = false;
    this.warn(error.message);
    this.onFailure(error.message);
  }

  private recover(): Promise<void> {
    this.recovering ??= this.takeNewGeneration().finally(() => (this.recovering = undefined));
    return this.recovering;
  }

  private async takeNewGeneration(): Promise<void> {
    const epochBefore = this.epoch;
    try {
      const generation = Number(await this.send<number>(['INCR', GENERATION_KEY]));
      // A failure raced with the recovery: it does not end the outage.
      if (this.epoch !== epochBefore || !this.redis) return;
      this.onNewGeneration();
      this.generation = generation;
      this.epoch++;
      this.usable = true;
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
    if (!this.redis?.isReady) return;
    try {
      const current = Number(await this.send<string | null>(['GET', GENERATION_KEY]));
      if (!this.usable) await this.recover();
      else if (current > this.generation) {
        // Another instance lived through an outage this one did not notice; events may have
        // been lost for this one too (its subscriber shares the Redis): start afresh as well.
        this.onNewGeneration();
        this.generation = current;
        this.epoch++;
      }
    } catch (error) {
      this.failed(error as Error);
    }
  }

  /** At most one warning every 10 s, however many requests go around Redis. */
  private warn(message: string): void {
    const now = Date.now();
    if (now - this.lastWarning < WARNING_INTERVAL_MS) return;
    this.lastWarning = now;
    this.logger.warn(`Redis unavailable, validating through introspection: ${message}`);
  }
}
