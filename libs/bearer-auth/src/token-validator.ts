import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { accessTokenKey, type ActiveIntrospectionResponse, type IntrospectionResponse, withoutTrailingSlashes } from '@platform/contracts';
import { BusTrust } from '@platform/event-bus';
import { HeldUnderTrust } from '@platform/held-under-trust';
import { InvalidTokenError } from '@platform/oauth-errors';
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
      /** The key a DPoP-bound token is bound to (cnf.jkt); absent for a bearer token. */
      jkt?: string;
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
 * afterwards (the in-process layer is held under trust, @platform/held-under-trust; the Redis
 * layer is used again once some instance is known to have heard every revocation meanwhile, or
 * in a new generation: see RedisAnswerCache). It never accepts a token it could not check.
 */
@Injectable()
export class TokenValidator implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(TokenValidator.name);
  private readonly introspection: IntrospectionClient;
  /** The in-process layer; its dropped keys are the tokens revoked recently, answered inactive. */
  private readonly local: HeldUnderTrust<LocalEntry>;
  private readonly inFlight = new Map<string, Promise<LocalEntry>>();
  private readonly shared?: RedisAnswerCache<CachedAnswer>;
  /** May anything cached be used: no revocation event missed. */
  private readonly trust: BusTrust;
  /** The configured resource as the one accepted audience, built once (this is every API call's path). */
  private readonly resourceAudiences: readonly string[];

  constructor(@Inject(BEARER_AUTH_OPTIONS) private readonly options: ResolvedBearerAuthOptions) {
    this.resourceAudiences = [withoutTrailingSlashes(options.resource)];
    this.introspection = new IntrospectionClient(options);
    this.trust = new BusTrust(options.eventBus, { name: 'bearer-auth', holds: 'the introspection cache' });
    this.local = new HeldUnderTrust(this.trust, {
      max: options.cache.inProcessEntries,
      ttlMs: options.cache.inProcessTtlSeconds * 1000,
      ttlOf: ({ answer }) => this.ttlMsOf(answer),
      maxDropped: 100_000,
      droppedTtlMs: options.cache.ttlCeilingSeconds * 1000,
    });
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
    // Trust ended or came back: the Redis layer's listening stretch is over (it joins again);
    // the in-process layer forgets what it held by itself.
    this.trust.onChange(() => this.shared?.trustChanged());
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

  /** Drops revoked tokens from both layers, at once. */
  async evict(keys: readonly string[]): Promise<void> {
    for (const key of keys) this.local.drop(key);
    await this.shared?.delete(keys);
  }

  /**
   * Whether cached answers may be used now: the bus's first heartbeat has been heard back after
   * start (and none missed since). Until then every request is an introspection.
   */
  cacheIsTrusted(): boolean {
    return this.trust.trustPeriod() !== undefined;
  }

  /**
   * Memory first (a token revoked recently is inactive, trusted or not), then the Redis layer,
   * then introspection; what Redis or introspection answers is held in memory under trust.
   */
  private async answer(key: string, token: string): Promise<LocalEntry> {
    if (this.cacheIsTrusted()) {
      const entry = this.memoryEntry(key);
      this.options.metrics.cacheLookup('memory', entry ? 'hit' : 'miss');
      if (entry) return entry;
    } else if (this.local.wasDropped(key)) {
      return INACTIVE_ENTRY;
    }
    const entry = await this.local.read(key, async () => (await this.fromRedis(key)) ?? (await this.introspectOnce(key, token)));
    return entry ?? INACTIVE_ENTRY;
  }

  /** A token revoked recently answers inactive from memory; else the held answer, while trusted. */
  private memoryEntry(key: string): LocalEntry | undefined {
    return this.local.wasDropped(key) ? INACTIVE_ENTRY : this.local.peek(key);
  }

  /** The shared layer, only while it is usable (RedisAnswerCache: never while events may be lost). */
  private async fromRedis(key: string): Promise<LocalEntry | undefined> {
    const answer = await this.shared?.get(key);
    return answer ? toEntry(answer) : undefined;
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
    const epoch = this.shared?.currentEpoch();
    let answer: CachedAnswer;
    try {
      answer = toCachedAnswer(await this.introspection.introspect(token));
    } catch (error) {
      this.options.metrics.introspection('error');
      throw error;
    }
    this.options.metrics.introspection(answer.active ? 'active' : 'inactive');
    // Shared only if the Redis layer's epoch is still the one it was asked in: an outage that
    // began or ended meanwhile (trust changing included) moves it on.
    const ttlMs = this.ttlMsOf(answer);
    if (ttlMs > 0 && !this.local.wasDropped(key)) this.shared?.set(key, answer, ttlMs, epoch);
    return toEntry(answer);
  }

  /** How long an answer may be cached: an active one until the token expires, within the ceiling; an inactive one briefly. */
  private ttlMsOf(answer: CachedAnswer): number {
    return answer.active
      ? Math.min(answer.expiresAt * 1000 - Date.now(), this.options.cache.ttlCeilingSeconds * 1000)
      : this.options.cache.inactiveTtlSeconds * 1000;
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
    ...(answer.jkt === undefined ? {} : { jkt: answer.jkt }),
  });
  return { answer, principal };
}

function toCachedAnswer(answer: IntrospectionResponse): CachedAnswer {
  if (!answer.active) return INACTIVE;
  const jkt = boundKeyOf(answer);
  // A refresh token (token_type refresh_token) is no access token; a DPoP token without its key could not be checked.
  if (jkt === null) return INACTIVE;
  const audience = Array.isArray(answer.aud) ? (answer.aud as string[]) : [answer.aud];
  return {
    active: true,
    schoolId: answer.school_id,
    userId: answer.sub,
    clientId: answer.client_id,
    scopes: answer.scope ? answer.scope.split(' ') : [],
    audience: audience.map((value) => withoutTrailingSlashes(value)),
    expiresAt: answer.exp,
    ...(jkt === undefined ? {} : { jkt }),
  };
}

/**
 * The key an access token is bound to (RFC 9449 §6.2: introspection answers `token_type`
 * "DPoP" and `cnf.jkt` for a DPoP-bound token), undefined for a bearer token, null for what this
 * resource server must not accept. A `cnf.jkt` is honoured whatever the token_type says: a
 * binding is never dropped.
 */
function boundKeyOf(answer: ActiveIntrospectionResponse): string | undefined | null {
  const jkt = typeof answer.cnf?.jkt === 'string' && answer.cnf.jkt !== '' ? answer.cnf.jkt : undefined;
  if (answer.token_type === 'DPoP') return jkt ?? null;
  if (answer.token_type === 'Bearer') return jkt;
  return null;
}
