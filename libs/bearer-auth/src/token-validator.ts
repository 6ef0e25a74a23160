import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { accessTokenKey, type IntrospectionResponse } from '@platform/contracts';
import { InvalidTokenError } from '@platform/oauth-errors';
import { LRUCache } from 'lru-cache';
import { createClient, type RedisClientType } from 'redis';
import { IntrospectionClient } from './introspection-client';
import { BEARER_AUTH_OPTIONS, type ResolvedBearerAuthOptions } from './options';
import type { TokenPrincipal } from './principal';

/** What is cached about a token: the introspection answer, reduced to what validation needs. */
export type CachedAnswer =
  | { active: false }
  | {
      active: true;
      schoolId: string;
      userId: string;
      clientId: string;
      scopes: string[];
      audience: string[];
      /** Seconds since the epoch. */
      expiresAt: number;
    };

const INACTIVE: CachedAnswer = Object.freeze({ active: false });
const REDIS_PREFIX = 'bearer-auth:introspection:';
const INVALID_DESCRIPTION = 'The access token is invalid, expired or revoked';

/**
 * Validates bearer tokens by RFC 7662 introspection, with two cache layers keyed by the
 * token's SHA-256 (never the token): an in-process LRU for hot tokens and Redis shared by
 * every instance. Active answers live at most until the token expires and never longer than
 * the configured ceiling; inactive answers briefly. Revocation events evict both layers.
 * When Redis fails, validation goes straight to introspection; it never accepts a token it
 * could not check.
 */
@Injectable()
export class TokenValidator implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(TokenValidator.name);
  private readonly introspection: IntrospectionClient;
  private readonly local: LRUCache<string, CachedAnswer>;
  /** Hashes revoked recently: an introspection already in flight must not re-cache them. */
  private readonly revoked: LRUCache<string, true>;
  private readonly inFlight = new Map<string, Promise<CachedAnswer>>();
  private readonly redis?: RedisClientType;
  private lastRedisWarning = 0;

  constructor(@Inject(BEARER_AUTH_OPTIONS) private readonly options: ResolvedBearerAuthOptions) {
    this.introspection = new IntrospectionClient(options);
    this.local = new LRUCache({ max: options.cache.inProcessEntries });
    this.revoked = new LRUCache({ max: 100_000, ttl: options.cache.ttlCeilingSeconds * 1000 });
    if (options.redisUrl) {
      this.redis = createClient({
        url: options.redisUrl,
        // Fail fast instead of queueing while Redis is away: validation then goes around it.
        disableOfflineQueue: true,
        commandOptions: { timeout: options.redisTimeoutMs },
        socket: { connectTimeout: 1_000, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2_000) },
      });
      this.redis.on('error', (error: Error) => this.warnRedis(error.message));
    }
  }

  async onModuleInit(): Promise<void> {
    // Not awaited: the service starts (and validates through introspection) while Redis is down.
    this.redis?.connect().catch((error: Error) => this.warnRedis(error.message));
  }

  async onModuleDestroy(): Promise<void> {
    if (this.redis?.isOpen) await this.redis.close().catch(() => undefined);
  }

  /** The principal of a valid token; throws InvalidTokenError or TemporarilyUnavailableError. */
  async validate(token: string): Promise<TokenPrincipal> {
    const key = accessTokenKey(token);
    const answer = this.fromMemory(key) ?? (await this.fromRedis(key)) ?? (await this.introspectOnce(key, token));
    return this.toPrincipal(answer);
  }

  /** Drops revoked tokens from both layers, at once. */
  async evict(keys: readonly string[]): Promise<void> {
    for (const key of keys) {
      this.revoked.set(key, true);
      this.local.delete(key);
    }
    if (this.redis?.isReady && keys.length > 0) {
      await this.redis.del(keys.map((key) => REDIS_PREFIX + key)).catch((error: Error) => this.warnRedis(error.message));
    }
  }

  /** Empties the in-process layer (after an outage of the event bus, events may be lost). */
  clearLocal(): void {
    this.local.clear();
  }

  private toPrincipal(answer: CachedAnswer): TokenPrincipal {
    if (!answer.active || answer.expiresAt * 1000 <= Date.now()) {
      throw new InvalidTokenError(INVALID_DESCRIPTION);
    }
    // RFC 8707 / MCP authorization: a token for another resource must not be accepted here.
    if (!answer.audience.includes(this.options.resource)) {
      throw new InvalidTokenError('The access token was not issued for this resource', `audience ${answer.audience.join(' ')}`);
    }
    return {
      kind: 'token',
      schoolId: answer.schoolId,
      userId: answer.userId,
      clientId: answer.clientId,
      scopes: answer.scopes,
      expiresAt: answer.expiresAt,
    };
  }

  /** A tombstone (revoked recently) answers inactive from memory too. */
  private fromMemory(key: string): CachedAnswer | undefined {
    const answer = this.revoked.has(key) ? INACTIVE : this.local.get(key);
    this.options.metrics.cacheLookup('memory', answer ? 'hit' : 'miss');
    return answer;
  }

  private async fromRedis(key: string): Promise<CachedAnswer | undefined> {
    if (!this.redis?.isReady) return undefined;
    try {
      const raw = await this.redis.get(REDIS_PREFIX + key);
      this.options.metrics.cacheLookup('redis', raw === null ? 'miss' : 'hit');
      if (raw === null) return undefined;
      const answer = JSON.parse(raw) as CachedAnswer;
      this.remember(key, answer, false);
      return answer;
    } catch (error) {
      this.warnRedis((error as Error).message);
      return undefined;
    }
  }

  /** Concurrent requests with the same uncached token share one introspection call. */
  private introspectOnce(key: string, token: string): Promise<CachedAnswer> {
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.introspect(key, token).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  private async introspect(key: string, token: string): Promise<CachedAnswer> {
    let answer: CachedAnswer;
    try {
      answer = toCachedAnswer(await this.introspection.introspect(token));
    } catch (error) {
      this.options.metrics.introspection('error');
      throw error;
    }
    this.options.metrics.introspection(answer.active ? 'active' : 'inactive');
    if (!this.revoked.has(key)) this.remember(key, answer, true);
    return answer;
  }

  private remember(key: string, answer: CachedAnswer, writeToRedis: boolean): void {
    const ttlMs = answer.active
      ? Math.min(answer.expiresAt * 1000 - Date.now(), this.options.cache.ttlCeilingSeconds * 1000)
      : this.options.cache.inactiveTtlSeconds * 1000;
    if (ttlMs <= 0) return;
    this.local.set(key, answer, { ttl: Math.min(ttlMs, this.options.cache.inProcessTtlSeconds * 1000) });
    if (writeToRedis && this.redis?.isReady) {
      this.redis
        .set(REDIS_PREFIX + key, JSON.stringify(answer), { expiration: { type: 'PX', value: Math.ceil(ttlMs) } })
        .catch((error: Error) => this.warnRedis(error.message));
    }
  }

  /** At most one warning every 10 s, however many requests go around Redis. */
  private warnRedis(message: string): void {
    const now = Date.now();
    if (now - this.lastRedisWarning < 10_000) return;
    this.lastRedisWarning = now;
    this.logger.warn(`Redis unavailable, validating through introspection: ${message}`);
  }
}

function toCachedAnswer(answer: IntrospectionResponse): CachedAnswer {
  if (!answer.active || answer.token_type !== 'Bearer') return INACTIVE;
  const audience = Array.isArray(answer.aud) ? (answer.aud as string[]) : [answer.aud];
  return {
    active: true,
    schoolId: answer.school_id,
    userId: answer.sub,
    clientId: answer.client_id,
    scopes: answer.scope ? answer.scope.split(' ') : [],
    audience: audience.map((uri) => uri.replace(/\/+$/, '')),
    expiresAt: answer.exp,
  };
}
