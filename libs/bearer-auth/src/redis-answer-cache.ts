import { Logger } from '@nestjs/common';
import type { EventBus } from '@platform/event-bus';
import { RedisConnection } from '@platform/redis-connection';
import { randomUUID } from 'node:crypto';
import type { ResolvedBearerAuthOptions } from './options';

/**
 * v3: entries carry the key a DPoP-bound token is bound to (jkt); an instance of the previous
 * format would ignore it and accept a bound token as a bearer token (RFC 9449 §7.2).
 */
const ENTRY_PREFIX = 'bearer-auth:introspection:v3:';
const GENERATION_KEY = 'bearer-auth:generation';
/** A counter every beat takes a number from: the order in which Redis saw beats and joins. */
const TICK_KEY = 'bearer-auth:tick';
/** The tick up to which some instance has heard every event published (see the class's comment). */
const COVERED_KEY = 'bearer-auth:covered-through';
const COVERAGE_CHANNEL_PREFIX = 'bearer-auth:coverage:';
const HEARTBEAT_MS = 1_000;
/** While waiting to use the shared entries, a closer look: a join decides within a few of these. */
const JOINING_BEAT_MS = 250;
/** How long a joining instance waits for another to cover its start: two of their beats and a margin. */
export const JOIN_WAIT_MS = 2 * HEARTBEAT_MS + 500;
const WARNING_INTERVAL_MS = 10_000;

/**
 * A beat: takes a tick and publishes it on this instance's coverage channel in one step, so that
 * every event Redis saw before the tick is delivered to this instance's subscription before the
 * beat itself; answers the tick and the current generation.
 */
const BEAT = `
local tick = redis.call('INCR', KEYS[1])
redis.call('PUBLISH', ARGV[1], tick)
return { tick, tonumber(redis.call('GET', KEYS[2]) or '0') }`;

/**
 * A claim: an instance listening without a gap since tick ARGV[1] heard its beat of tick ARGV[2],
 * so every event before ARGV[2] reached it. If what was covered reaches its start, the coverage
 * now reaches ARGV[2]. Answers the coverage as it was.
 */
const CLAIM = `
local through = tonumber(redis.call('GET', KEYS[1]) or '0')
local tick = tonumber(ARGV[2])
if through >= tonumber(ARGV[1]) and tick > through then redis.call('SET', KEYS[1], tick) end
return through`;

/**
 * A join: an instance listening since tick ARGV[1] may use the entries of the current generation
 * if the coverage reaches its start (no moment without a listener since the generation began).
 * Otherwise some revocation may have been heard by nobody: a new generation, covered from here.
 * Answers whether it is new, and the generation.
 */
const JOIN = `
local through = tonumber(redis.call('GET', KEYS[1]) or '0')
if through >= tonumber(ARGV[1]) then return { 0, tonumber(redis.call('GET', KEYS[2]) or '0') } end
redis.call('SET', KEYS[1], ARGV[1])
return { 1, redis.call('INCR', KEYS[2]) }`;

interface Entry<T> {
  /** The generation the entry was written in. */
  g: number;
  a: T;
}

/** A listening stretch: from tick `since`, in one trust period, without a gap. */
interface Stretch {
  since: number;
  period: number;
}

/**
 * The Redis layer of the introspection cache, on the process's shared Redis connection.
 * Whether anything cached may be trusted at all (no revocation event missed by this process) is
 * BusTrust's to say; this layer says whether the shared entries may be read and written.
 *
 * A revocation deletes its entry in Redis through every instance that hears the event. An entry
 * can therefore be stale only if nobody heard the event: a moment when no instance listened (all
 * of them restarting, Redis away) or one deaf to it unknowingly. So every instance, while it
 * listens, proves it: each beat takes a tick and publishes it to itself; hearing it back means
 * every event before that tick reached it, and it claims the coverage up to there (CLAIM), if
 * the coverage reached the start of its own listening stretch. An instance that starts, or
 * listens again after an outage of its own, takes a tick once its subscription is back and waits
 * (JOIN_WAIT_MS at most, none when no other instance is subscribed) for the coverage to reach it:
 * then it uses the entries as they are (the others heard what it missed); if it never does, it
 * takes a new generation (JOIN), in which the entries written before are ignored everywhere. A
 * new replica, a rolling restart or one replica's reconnection keeps everyone's cache; a Redis
 * outage (everyone deaf), or a time with no replica at all, retires it. Beats read the generation
 * too: an instance adopts a newer one (and empties its in-process layer) within a second.
 *
 * From the first failed or unanswered command (or 'error' event) until it has joined again, it
 * reads and writes nothing and reports the failure (`onFailure`: the owner tells BusTrust, since
 * revocation events travel over the same Redis). No clocks are compared.
 */
export class RedisAnswerCache<T> {
  private readonly logger = new Logger('TokenValidator');
  private readonly channel = `${COVERAGE_CHANNEL_PREFIX}${randomUUID()}`;
  private redis?: RedisConnection;
  private usable = false;
  private generation = 0;
  /** Changes with every failure and generation: an answer is written only in the epoch it was asked in. */
  private epoch = 0;
  /** The stretch in which the entries are used (while usable), or being joined (while not). */
  private stretch?: Stretch;
  private joiningSince = 0;
  /** The last beat sent while usable: only it may be claimed. */
  private lastBeat?: number;
  /** Deletes of revoked entries not answered yet: a claim waits for them (it must not pass an event whose delete failed). */
  private readonly deleting = new Set<Promise<void>>();
  /** Whether the owner's revocation subscription is up (the entries' deletions reach this instance). */
  private listening = false;
  private stepping?: Promise<void>;
  private stepAgain = false;
  private heartbeat?: NodeJS.Timeout;
  private unsubscribe?: () => Promise<void>;
  private lastWarning = 0;
  private readonly onError = (error: Error) => this.failed(error);
  private readonly onReady = () => void this.step();

  constructor(
    private readonly url: string,
    private readonly options: ResolvedBearerAuthOptions,
    private readonly bus: EventBus,
    /** BusTrust's current period (undefined while events may be being lost). */
    private readonly trustPeriod: () => number | undefined,
    private readonly onFailure: (reason: string) => void,
    private readonly onNewGeneration: () => void,
  ) {}

  /** Connects in the background: until it has joined, validation goes around Redis. */
  async start(): Promise<void> {
    if (this.redis) return;
    const redis = RedisConnection.acquire(this.url);
    this.redis = redis;
    redis.client.on('error', this.onError);
    redis.client.on('ready', this.onReady);
    this.schedule(JOINING_BEAT_MS);
    const unsubscribe = await this.bus.subscribe<number>(this.channel, (tick) => void this.heard(tick));
    // Stopped while the subscription was being made.
    if (this.redis === redis) this.unsubscribe = unsubscribe;
    else await unsubscribe().catch(() => undefined);
  }

  /** The owner's revocation subscription is up: the shared entries may be joined from now on. */
  listen(): void {
    this.listening = true;
    void this.step();
  }

  /** BusTrust's period ended or a new one began: this stretch is over, a new one is joined once trusted. */
  trustChanged(): void {
    this.leave();
    void this.step();
  }

  async stop(): Promise<void> {
    clearTimeout(this.heartbeat);
    this.heartbeat = undefined;
    const redis = this.redis;
    if (!redis) return;
    this.redis = undefined;
    this.leave();
    redis.client.off('error', this.onError);
    redis.client.off('ready', this.onReady);
    await this.unsubscribe?.().catch(() => undefined);
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
   * A delete that fails leaves the answer behind for an instance that missed the event. The
   * failure ends this instance's stretch, so its claims stop before the coverage passes the
   * event; if nobody else covered it, the next join takes a new generation, which retires the
   * entry everywhere.
   */
  async delete(keys: readonly string[]): Promise<void> {
    if (!this.redis?.isReady || keys.length === 0) return;
    const deleted = this.send(['DEL', ...keys.map((key) => ENTRY_PREFIX + key)]).then(
      () => undefined,
      (error: Error) => this.failed(error),
    );
    this.deleting.add(deleted);
    await deleted.finally(() => this.deleting.delete(deleted));
  }

  private send<R>(args: string[]): Promise<R> {
    const redis = this.redis;
    if (!redis) return Promise.reject(new Error('the cache is stopped'));
    return redis.command((client, abortSignal) => client.sendCommand(args, { abortSignal }) as Promise<R>, this.options.redisTimeoutMs);
  }

  private eval<R>(script: string, keys: string[], args: (string | number)[]): Promise<R> {
    return this.send<R>(['EVAL', script, String(keys.length), ...keys, ...args.map(String)]);
  }

  private leave(): void {
    if (this.usable || this.stretch) this.epoch++;
    this.usable = false;
    this.stretch = undefined;
    this.lastBeat = undefined;
  }

  private failed(error: Error): void {
    this.leave();
    this.warn(error.message);
    this.onFailure(error.message);
  }

  /** The heartbeat: a beat while usable, a step of joining otherwise. */
  private schedule(delayMs: number): void {
    if (!this.redis) return;
    this.heartbeat = setTimeout(() => {
      void this.step().finally(() => this.schedule(this.usable ? HEARTBEAT_MS : JOINING_BEAT_MS));
    }, delayMs);
    this.heartbeat.unref();
  }

  /**
   * One step at a time, whoever asks (the heartbeat, 'ready', trust coming back, the listener):
   * one asked for while another runs follows it, since what it was asked for may have changed.
   */
  private step(): Promise<void> {
    if (this.stepping) {
      this.stepAgain = true;
      return this.stepping;
    }
    this.stepping = (async () => {
      do {
        this.stepAgain = false;
        await (this.usable ? this.beat() : this.join());
      } while (this.stepAgain && this.redis);
    })().finally(() => (this.stepping = undefined));
    return this.stepping;
  }

  /**
   * Joining: once Redis answers, the revocation subscription is up and BusTrust trusts it, take
   * the tick this stretch starts at; then use the entries as soon as the coverage reaches it, or
   * take a new generation when it has not within JOIN_WAIT_MS (at once when no other instance
   * is there to cover it).
   */
  private async join(): Promise<void> {
    const period = this.trustPeriod();
    if (!this.redis?.isReady || !this.listening || period === undefined) return;
    const epochBefore = this.epoch;
    try {
      if (this.stretch?.period !== period) {
        const since = Number(await this.send<number>(['INCR', TICK_KEY]));
        if (this.epoch !== epochBefore || this.trustPeriod() !== period) return;
        this.stretch = { since, period };
        this.joiningSince = Date.now();
      }
      const { since } = this.stretch;
      const covered = Number(await this.send<string | null>(['GET', COVERED_KEY]));
      if (covered < since && Date.now() - this.joiningSince < JOIN_WAIT_MS && (await this.othersListen())) return;
      const [fresh, generation] = (await this.eval<[number, number]>(JOIN, [COVERED_KEY, GENERATION_KEY], [since])).map(Number);
      // A failure or a change of trust raced with the join: it does not end the outage.
      if (this.epoch !== epochBefore || this.trustPeriod() !== period || !this.redis) return;
      if (fresh) this.logger.log(`cache generation ${generation}: no instance heard every revocation since the last one; older entries are ignored`);
      this.onNewGeneration();
      this.generation = generation;
      this.epoch++;
      this.usable = true;
    } catch (error) {
      this.failed(error as Error);
    }
  }

  /** Whether another instance's coverage channel has a subscriber (one that could cover this one's start). */
  private async othersListen(): Promise<boolean> {
    const channels = await this.send<string[]>(['PUBSUB', 'CHANNELS', `${COVERAGE_CHANNEL_PREFIX}*`]);
    return channels.some((channel) => channel !== this.channel);
  }

  /**
   * A beat: a tick published to itself (heard: a claim), and the generation read back; a newer
   * one means another instance found a moment nobody listened, which may have cost this one
   * events too: it starts afresh as well. Doubles as a PING: it notices a Redis that keeps the
   * connection open and answers nothing (no 'error' then, and hot tokens send no command).
   */
  private async beat(): Promise<void> {
    if (!this.redis?.isReady) return;
    const epoch = this.epoch;
    try {
      const [tick, current] = (await this.eval<[number, number]>(BEAT, [TICK_KEY, GENERATION_KEY], [this.channel])).map(Number);
      if (!this.usable || this.epoch !== epoch) return;
      this.lastBeat = tick;
      if (current > this.generation) {
        this.onNewGeneration();
        this.generation = current;
        this.epoch++;
      }
    } catch (error) {
      this.failed(error as Error);
    }
  }

  /**
   * This instance heard its beat: every event before its tick reached it in this stretch. The
   * claim waits for the deletes those events caused: a failed one ends the stretch, and the claim
   * with it.
   */
  private async heard(tick: unknown): Promise<void> {
    const stretch = this.stretch;
    const beat = this.lastBeat;
    if (!this.usable || !stretch || beat === undefined || tick !== beat || this.trustPeriod() !== stretch.period) return;
    await Promise.all(this.deleting);
    if (!this.usable || this.stretch !== stretch || this.trustPeriod() !== stretch.period) return;
    try {
      const through = Number(await this.eval<number>(CLAIM, [COVERED_KEY], [stretch.since, beat]));
      // The coverage lost its start (Redis lost the key): join again, which finds the gap.
      if (through < stretch.since && this.stretch === stretch) {
        this.leave();
        void this.step();
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
