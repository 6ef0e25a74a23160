import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { accessTokenKey, type IntrospectionResponse, withoutTrailingSlashes } from '@platform/contracts';
import { BusTrust } from '@platform/event-bus';
import { InvalidTokenError } from '@platform/oauth-errors';
import { LRUCache } from 'lru-cache';
import { IntrospectionClient } from './introspection-client';
import { BEARER_AUTH_OPTIONS, type ResolvedBearerAuthOptions } from './options';
import type { TokenPrincipal } from './principal';
import { RedisAnswerCache } from './redis-answer-cache';

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

/** An in-process entry: the answer and, for an active one, its principal, built once. */
interface LocalEntry {
  readonly answer: CachedAnswer;
  readonly principal?: TokenPrincipal;
}

const INACTIVE: CachedAnswer = Object.freeze({ active: false });
const INACTIVE_ENTRY: LocalEntry = Object.freeze({ answer: INACTIVE });
const INVALID_DESCRIPTION = 'The access token is invalid, expired or revoked';
/** The longest token the authorization server accepts at introspection. */
const MAX_TOKEN_LENGTH = 4096;

/**
 * Validates bearer tokens by RFC 7662 introspection, with two cache layers keyed by the
 * token's SHA-256 (never the token): an in-process LRU for hot tokens and Redis shared by
 * every instance. Active answers live at most until the token expires and never longer than
 * the configured ceiling; inactive answers briefly. Revocation events evict both layers.
 * While revocation events may be being lost (BusTrust: the bus's heartbeat and subscription,
 * and every failed command of the Redis layer, which shares that Redis), nothing cached is
 * used: every validation is an introspection, and what was cached before is not trusted
 * afterwards (the in-process layer starts empty; the Redis layer is used again once some
 * instance is known to have heard every revocation meanwhile, or in a new generation: see
 * RedisAnswerCache). It never accepts a token it could not check.
 */
@Injectable()
export class TokenValidator implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(TokenValidator.name);
  private readonly introspection: IntrospectionClient;
  private readonly local: LRUCache<string, LocalEntry>;
  /** Hashes revoked recently: an introspection already in flight must not re-cache them. */
  private readonly revoked: LRUCache<string, true>;
  private readonly inFlight = new Map<string, Promise<LocalEntry>>();
  private readonly shared?: RedisAnswerCache<CachedAnswer>;
  /** May anything cached be used: no revocation event missed. */
  private readonly trust: BusTrust;
  /** The configured resource as the one accepted audience, built once (this is every API call's path). */
  private readonly resourceAudiences: readonly string[];

  constructor(@Inject(BEARER_AUTH_OPTIONS) private readonly options: ResolvedBearerAuthOptions) {
    this.resourceAudiences = [withoutTrailingSlashes(options.resource)];
    this.introspection = new IntrospectionClient(options);
    this.local = new LRUCache({ max: options.cache.inProcessEntries });
    this.revoked = new LRUCache({ max: 100_000, ttl: options.cache.ttlCeilingSeconds * 1000 });
    this.trust = new BusTrust(options.eventBus, { name: 'bearer-auth', holds: 'the introspection cache' });
    if (options.redisUrl) {
      this.shared = new RedisAnswerCache(
        options.redisUrl,
        options,
        options.eventBus,
        () => this.trust.trustPeriod(),
        (reason) => this.trust.interrupted(`Redis: ${reason}`),
        () => this.local.clear(),
      );
    }
    // Trust ended or came back: what the in-process layer holds may be stale, and the Redis
    // layer's listening stretch is over (it joins again).
    this.trust.onChange(() => {
      this.local.clear();
      this.shared?.trustChanged();
    });
  }

  async onModuleInit(): Promise<void> {
    // In the background: the service starts (and validates through introspection) while Redis is down.
    this.shared?.start().catch((error: Error) => this.logger.warn(`the Redis layer did not start: ${error.message}`));
    await this.trust.start();
  }

  /** Every module's onModuleInit has run: the revocation listener is subscribed, the Redis layer may join. */
  onApplicationBootstrap(): void {
    this.shared?.listen();
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all([this.trust.stop(), this.shared?.stop()]);
  }

  /**
   * The principal of a valid token; throws InvalidTokenError or TemporarilyUnavailableError.
   * `audiences`: the resource identifiers this endpoint accepts a token for (RFC 8707), in
   * canonical form (no trailing slash), built once by the caller; by default the configured resource.
   */
  async validate(token: string, audiences: readonly string[] = this.resourceAudiences): Promise<TokenPrincipal> {
    rejectOverlong(token);
    const key = accessTokenKey(token);
    return principalOf(await this.answer(key, token), audiences);
  }

  /**
   * The synchronous path of a warm token, for the guard: the principal when the in-process
   * layer holds a trusted answer for the token, after the same checks as validate (expiry,
   * audience, a recent revocation); throws what validate throws for a cached refusal.
   * `undefined` when memory has no answer (or may not be trusted): the caller validates as
   * usual, and that validation counts the miss.
   */
  validateCached(token: string, audiences: readonly string[] = this.resourceAudiences): TokenPrincipal | undefined {
    if (token.length > MAX_TOKEN_LENGTH || this.trustPeriod() === undefined) return undefined;
    const entry = this.memoryEntry(accessTokenKey(token));
    if (entry === undefined) return undefined;
    this.options.metrics.cacheLookup('memory', 'hit');
    return principalOf(entry, audiences);
  }

  /** Drops revoked tokens from both layers, at once. */
  async evict(keys: readonly string[]): Promise<void> {
    for (const key of keys) {
      this.revoked.set(key, true);
      this.local.delete(key);
    }
    await this.shared?.delete(keys);
  }

  private async answer(key: string, token: string): Promise<LocalEntry> {
    if (this.trustPeriod() === undefined) {
      // Revocation events may be being lost: only the authorization server knows.
      return this.revoked.has(key) ? INACTIVE_ENTRY : this.introspectOnce(key, token);
    }
    return this.fromMemory(key) ?? (await this.fromRedis(key)) ?? (await this.introspectOnce(key, token));
  }

  private trustPeriod(): number | undefined {
    return this.trust.trustPeriod();
  }

  /**
   * Whether cached answers may be used now: the bus's first heartbeat has been heard back after
   * start (and none missed since). Until then every request is an introspection.
   */
  cacheIsTrusted(): boolean {
    return this.trustPeriod() !== undefined;
  }

  /**
   * A tombstone (revoked recently) answers inactive from memory too. Most of the time there is
   * none, and a second LRU lookup on every bearer request is then skipped (`size` counts expired
   * tombstones until they are purged, which only means looking).
   */
  private memoryEntry(key: string): LocalEntry | undefined {
    return this.revoked.size !== 0 && this.revoked.has(key) ? INACTIVE_ENTRY : this.local.get(key);
  }

  private fromMemory(key: string): LocalEntry | undefined {
    const entry = this.memoryEntry(key);
    this.options.metrics.cacheLookup('memory', entry ? 'hit' : 'miss');
    return entry;
  }

  private async fromRedis(key: string): Promise<LocalEntry | undefined> {
    const answer = await this.shared?.get(key);
    if (!answer) return undefined;
    const entry = toEntry(answer);
    this.remember(key, entry);
    return entry;
  }

  /** Concurrent requests with the same uncached token share one introspection call. */
  private introspectOnce(key: string, token: string): Promise<LocalEntry> {
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.introspect(key, token).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  private async introspect(key: string, token: string): Promise<LocalEntry> {
    const period = this.trustPeriod();
    const epoch = this.shared?.currentEpoch();
    let answer: CachedAnswer;
    try {
      answer = toCachedAnswer(await this.introspection.introspect(token));
    } catch (error) {
      this.options.metrics.introspection('error');
      throw error;
    }
    this.options.metrics.introspection(answer.active ? 'active' : 'inactive');
    const entry = toEntry(answer);
    // Not if an outage began or ended meanwhile: a revocation event may have been lost.
    if (!this.revoked.has(key) && period !== undefined && period === this.trustPeriod()) this.remember(key, entry, epoch);
    return entry;
  }

  /** In memory, and in Redis when `redisEpoch` (the Redis layer's epoch when it was asked) is still current. */
  private remember(key: string, entry: LocalEntry, redisEpoch?: number): void {
    const answer = entry.answer;
    const ttlMs = answer.active
      ? Math.min(answer.expiresAt * 1000 - Date.now(), this.options.cache.ttlCeilingSeconds * 1000)
      : this.options.cache.inactiveTtlSeconds * 1000;
    if (ttlMs <= 0) return;
    this.local.set(key, entry, { ttl: Math.min(ttlMs, this.options.cache.inProcessTtlSeconds * 1000) });
    if (redisEpoch !== undefined) this.shared?.set(key, answer, ttlMs, redisEpoch);
  }
}

/**
 * The authorization server refuses a longer token at introspection with 400, which would
 * reach the caller as 503. RFC 6750 §3.1, invalid_token: "The access token provided is
 * expired, revoked, malformed, or invalid for other reasons. The resource SHOULD respond with
 * the HTTP 401 (Unauthorized) status code."
 */
function rejectOverlong(token: string): void {
  if (token.length > MAX_TOKEN_LENGTH) {
    throw new InvalidTokenError(INVALID_DESCRIPTION, `token of ${token.length} characters, over ${MAX_TOKEN_LENGTH}`);
  }
}

/** The principal of a remembered answer, or the refusal validate gives for it. */
function principalOf(entry: LocalEntry, audiences: readonly string[]): TokenPrincipal {
  const { answer, principal } = entry;
  // An entry has a principal exactly when its answer is active.
  if (!answer.active || principal === undefined || answer.expiresAt * 1000 <= Date.now()) {
    throw new InvalidTokenError(INVALID_DESCRIPTION);
  }
  // RFC 8707 / MCP authorization: a token for another resource must not be accepted here.
  if (!sharesAudience(answer.audience, audiences)) {
    throw new InvalidTokenError('The access token was not issued for this resource', `audience ${answer.audience.join(' ')}`);
  }
  return principal;
}

function sharesAudience(tokenAudiences: readonly string[], accepted: readonly string[]): boolean {
  for (const audience of tokenAudiences) if (accepted.includes(audience)) return true;
  return false;
}

function toEntry(answer: CachedAnswer): LocalEntry {
  if (!answer.active) return INACTIVE_ENTRY;
  const principal: TokenPrincipal = Object.freeze({
    kind: 'token',
    schoolId: answer.schoolId,
    userId: answer.userId,
    clientId: answer.clientId,
    scopes: answer.scopes,
    expiresAt: answer.expiresAt,
  });
  return { answer, principal };
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
    audience: audience.map((value) => withoutTrailingSlashes(value)),
    expiresAt: answer.exp,
  };
}
