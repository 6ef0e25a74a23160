import { Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { randomUUID } from 'node:crypto';
import { RedisConnection } from '@platform/redis-connection';
import { MemoryRateLimitStore } from './memory-store';
import { type Admission, type BackoffPolicy, type Outcome, PENDING_LIFETIME_MS, type RateLimitStore, type WindowHit } from './store';

/*
 * Every operation is one Lua script, so it is atomic across instances. Time is Redis's own
 * (TIME), so instances with skewed clocks agree on when a lock ends.
 */
const HIT = `
local count = redis.call('INCRBY', KEYS[1], ARGV[2])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;

// KEYS[1]: hash {f: failures, l: locked until}; KEYS[2]: sorted set of attempts under way,
// scored by when they stop counting (PENDING_LIFETIME_MS).
const ATTEMPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local locked = tonumber(redis.call('HGET', KEYS[1], 'l') or '0')
local failures = tonumber(redis.call('HGET', KEYS[1], 'f') or '0')
if locked > now then
  return {0, failures, locked - now}
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[1]) then
  return {0, failures, 1000}
end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return {1, failures, 0}
`;

const SETTLE = `
redis.call('ZREM', KEYS[2], ARGV[6])
local outcome = ARGV[1]
if outcome == 'cleared' then
  redis.call('DEL', KEYS[1])
elseif outcome == 'failed' then
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local free, base, max, forget = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
  local failures = redis.call('HINCRBY', KEYS[1], 'f', 1)
  local lock = 0
  if failures > free then
    lock = math.min(max, base * 2 ^ math.min(failures - free - 1, 52))
    local locked = tonumber(redis.call('HGET', KEYS[1], 'l') or '0')
    redis.call('HSET', KEYS[1], 'l', string.format('%.0f', math.max(locked, now + lock)))
  end
  redis.call('PEXPIRE', KEYS[1], string.format('%.0f', math.max(forget, lock)))
end
return 1
`;

const sha1 = (script: string) => createHash('sha1').update(script).digest('hex');
const SCRIPTS = { hit: HIT, attempt: ATTEMPT, settle: SETTLE } as const;
type ScriptName = keyof typeof SCRIPTS;
/** Hashed once: EVALSHA names the script by its SHA-1. */
const SHAS: Record<ScriptName, string> = { hit: sha1(HIT), attempt: sha1(ATTEMPT), settle: sha1(SETTLE) };
const UNAVAILABLE = Symbol('redis unavailable');
/** Tickets of attempts admitted by the in-process fallback. */
const LOCAL = 'local:';

export interface RedisRateLimitStoreOptions {
  url: string;
  /** Prefix of every key, e.g. "auth-server:rate-limits:". */
  prefix?: string;
  /** A command slower than this counts as an outage (default 200 ms). */
  commandTimeoutMs?: number;
  /** After a failure, Redis is left alone this long before it is tried again (default 1 s). */
  retryAfterMs?: number;
}

/**
 * Counters in Redis (node-redis v6, on the process's shared connection: RedisConnection), shared by every instance. While Redis is unreachable
 * each instance counts in-process instead (MemoryRateLimitStore), so the limits still hold
 * per instance and no request waits for Redis: an outage neither opens the door nor stalls
 * the service. One warning every 10 s at most.
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly logger = new Logger('RateLimits');
  private readonly redis: RedisConnection;
  private readonly fallback = new MemoryRateLimitStore();
  private readonly prefix: string;
  private lastWarning = 0;
  private readonly timeoutMs: number;
  private readonly retryAfterMs: number;
  /** Redis failed lately: counted in-process until then, without sending anything. */
  private unavailableUntil = 0;
  private readonly firstOutcome: Promise<boolean>;

  constructor(options: RedisRateLimitStoreOptions) {
    this.prefix = options.prefix ?? 'rate-limits:';
    this.timeoutMs = options.commandTimeoutMs ?? 200;
    this.retryAfterMs = options.retryAfterMs ?? 1_000;
    // Not awaited: the service starts (counting in-process) while Redis is down, and the
    // connection keeps reconnecting by itself.
    this.redis = RedisConnection.acquire(options.url);
    this.firstOutcome = this.redis.firstOutcome();
  }

  /** Resolves once the first connection attempt succeeded (true) or failed (false). */
  async ready(): Promise<boolean> {
    await this.firstOutcome;
    return this.redis.isReady;
  }

  async hit(key: string, windowMs: number, by = 1): Promise<WindowHit> {
    const reply = await this.run('hit', [key], [windowMs, by]);
    if (reply === UNAVAILABLE) return this.fallback.hitSync(key, windowMs, by);
    return { count: Number(reply[0]), resetInMs: Number(reply[1]) };
  }

  async attempt(key: string, policy: BackoffPolicy): Promise<Admission> {
    const ticket = randomUUID();
    const reply = await this.run('attempt', [key, `${key}:pending`], [policy.maxPending, ticket, PENDING_LIFETIME_MS]);
    if (reply === UNAVAILABLE) {
      const local = this.fallback.attemptSync(key, policy);
      return local.ticket ? { ...local, ticket: `${LOCAL}${local.ticket}` } : local;
    }
    const allowed = Number(reply[0]) === 1;
    return { allowed, failures: Number(reply[1]), retryInMs: Number(reply[2]), ...(allowed ? { ticket } : {}) };
  }

  async settle(key: string, policy: BackoffPolicy, outcome: Outcome, ticket: string): Promise<void> {
    if (ticket.startsWith(LOCAL)) return this.fallback.settleSync(key, policy, outcome, ticket.slice(LOCAL.length));
    const reply = await this.run('settle', [key, `${key}:pending`], [outcome, policy.freeFailures, policy.baseDelayMs, policy.maxDelayMs, policy.forgetAfterMs, ticket]);
    // Redis went away meanwhile: its pending entry lapses by itself; the failure still counts here.
    if (reply === UNAVAILABLE) this.fallback.settleSync(key, policy, outcome, ticket);
  }

  async close(): Promise<void> {
    await this.redis.release();
    await this.fallback.close();
  }

  /** The script's reply, or UNAVAILABLE when Redis cannot answer (the caller falls back). */
  private async run(name: ScriptName, keys: string[], args: (number | string)[]): Promise<unknown[] | typeof UNAVAILABLE> {
    if (!this.usable()) return UNAVAILABLE;
    // EVALSHA sha numkeys key... arg...: sent as is (sendCommand), no command parser per call.
    const tail = [String(keys.length), ...keys.map((key) => this.prefix + key), ...args.map((value) => (typeof value === 'number' ? String(Math.round(value)) : value))];
    try {
      try {
        return (await this.send(['EVALSHA', SHAS[name], ...tail])) as unknown[];
      } catch (error) {
        if (!String((error as Error).message).startsWith('NOSCRIPT')) throw error;
        return (await this.send(['EVAL', SCRIPTS[name], ...tail])) as unknown[];
      }
    } catch (error) {
      this.failed(error as Error);
      return UNAVAILABLE;
    }
  }

  private usable(): boolean {
    return this.redis.isReady && Date.now() >= this.unavailableUntil;
  }

  private failed(error: Error): void {
    this.unavailableUntil = Date.now() + this.retryAfterMs;
    this.warn(error.message);
  }

  /**
   * A Redis that takes the bytes and never answers (frozen, partitioned) would hold the request
   * forever: the command has a deadline (RedisConnection.command).
   */
  private send(args: string[]): Promise<unknown> {
    return this.redis.command((client, abortSignal) => client.sendCommand(args, { abortSignal }), this.timeoutMs);
  }

  private warn(message: string): void {
    const now = Date.now();
    if (now - this.lastWarning < 10_000) return;
    this.lastWarning = now;
    this.logger.warn(`Redis unavailable, counting in-process meanwhile: ${message}`);
  }
}
