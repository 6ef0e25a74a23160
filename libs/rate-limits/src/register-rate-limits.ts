import { sendOAuthError, TooManyRequestsError } from '@platform/oauth-errors';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { RateLimitStore } from './store';
import { type LimitRule, type Refusal, RefusalLog, refusalOf, type WindowCounter, windowCounterFor } from './window-counter';

export type { Refusal };

/** Where a route limit runs: before the body is read, or after it is parsed. */
export type LimitStage = 'onRequest' | 'preHandler';

/** A route's requests, counted per key in fixed windows: the common kind of limit. */
export interface RateLimitRule extends LimitRule {
  /** The route as registered, so encoded or odd spellings of the path cannot dodge it. */
  method: string;
  url: string;
  /**
   * `onRequest`: counted before the body is read (rules keyed by address, so a flood of large
   * bodies is cut early). `preHandler`: after parsing, for keys taken from the body (client_id).
   */
  stage: LimitStage;
  /** The request's key under this rule; undefined when the rule does not apply to it. */
  key(request: FastifyRequest, ip: string): string | undefined;
}

/**
 * A limit decided elsewhere, checked on a route without counting anything: e.g. an address
 * refused for its failures (KeyedLimit.refusalOf), whose failures are counted where they are
 * known. Synchronous: a lookup in this process.
 */
export interface RouteCheck {
  method: string;
  url: string;
  stage: LimitStage;
  check(request: FastifyRequest, ip: string): Refusal | undefined;
}

export interface RegisterRateLimitsOptions {
  store: RateLimitStore;
  rules: readonly RateLimitRule[];
  /** Checks that run before the route's rules of the same stage (a refused request then counts nowhere). */
  checks?: readonly RouteCheck[];
  /** Off: nothing is registered (RATE_LIMITS_ENABLED=false). */
  enabled?: boolean;
  /** Sends the answer to a refused request; the default is 429 with an RFC 6749-style JSON body. */
  respond?: (request: FastifyRequest, reply: FastifyReply, refusal: Refusal) => void;
}

type Hook = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void;

/**
 * Rate limits on a Fastify instance: fixed windows per rule and key, counted in the given store
 * (Redis shared by every instance through LocalFirstWindows, or this process). Call before the
 * routes are registered (Nest registers its routes in app.init()): each rule's check becomes a
 * hook of its own route, so a route without a limit runs no code of this module at all.
 * Addresses are `request.ip`: give the instance a `trustProxy` list of the proxies whose
 * X-Forwarded-For is believed (never `true`, or any caller picks its own budget). Every refusal
 * is `429 {"error":"too_many_requests","error_description":…}` with `Retry-After` in seconds.
 *
 * The count is compared with the rule's maximum here rather than through @fastify/rate-limit
 *: of that plugin only the comparison was still in use (keys, stores and
 * answers are ours), and it made every limited request a chain of promises and callbacks even
 * when the count was known in this process (most requests, see LocalFirstWindows): decided
 * synchronously, a limit costs a map lookup.
 */
export async function registerRateLimits(fastify: FastifyInstance, options: RegisterRateLimitsOptions): Promise<void> {
  if (options.enabled === false || (options.rules.length === 0 && !options.checks?.length)) return;
  const respond = options.respond ?? defaultResponse;
  const counter = windowCounterFor(options.store);
  fastify.addHook('onClose', async () => counter.flush());

  const limiters: RouteLimiter[] = [...(options.checks ?? []), ...options.rules.map((rule) => new RuleLimiter(rule, counter))];
  fastify.addHook('onRoute', (route) => {
    const methods = ([] as string[]).concat(route.method);
    for (const stage of ['onRequest', 'preHandler'] as const) {
      const applicable = limiters.filter((limiter) => limiter.stage === stage && limiter.url === route.url && methods.includes(limiter.method));
      if (applicable.length > 0) addRouteHook(route, stage, limitHook(applicable, respond));
    }
  });
}

/** What a route's hook runs, in order: a check or a rule. */
interface RouteLimiter {
  readonly method: string;
  readonly url: string;
  readonly stage: LimitStage;
  /** Undefined: the request may go on. */
  check(request: FastifyRequest, ip: string): Refusal | undefined | Promise<Refusal | undefined>;
}

/** One rule's window counting and its refusals (logged at most every 10 s, with how many). */
class RuleLimiter implements RouteLimiter {
  readonly method: string;
  readonly url: string;
  readonly stage: LimitStage;
  private readonly windowMs: number;
  private readonly log: RefusalLog;

  constructor(
    private readonly rule: RateLimitRule,
    private readonly counter: WindowCounter,
  ) {
    this.method = rule.method;
    this.url = rule.url;
    this.stage = rule.stage;
    this.windowMs = rule.windowSeconds * 1000;
    this.log = new RefusalLog(rule);
  }

  check(request: FastifyRequest, ip: string): Refusal | undefined | Promise<Refusal | undefined> {
    const key = this.rule.key(request, ip);
    if (key === undefined) return undefined;
    const hit = this.counter.hit(`${this.rule.name}:${key}`, this.windowMs, this.rule.max);
    return hit instanceof Promise ? hit.then((answer) => this.judge(refusalOf(this.rule, answer))) : this.judge(refusalOf(this.rule, hit));
  }

  private judge(refusal: Refusal | undefined): Refusal | undefined {
    if (refusal) this.log.refusedOne();
    return refusal;
  }
}

/**
 * A callback hook over a route's rules of one stage, in order: the first refusal answers.
 * Synchronous while every count is known in this process; a promise only for a rule whose
 * counter asks the shared store.
 */
function limitHook(limiters: readonly RouteLimiter[], respond: NonNullable<RegisterRateLimitsOptions['respond']>): Hook {
  const from = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void, index: number, ip: string): void => {
    for (let i = index; i < limiters.length; i++) {
      const outcome = limiters[i].check(request, ip);
      if (outcome instanceof Promise) {
        outcome.then(
          (refusal) => (refusal ? respond(request, reply, refusal) : from(request, reply, done, i + 1, ip)),
          // The stores never fail (RateLimitStore: Redis away → counted in-process); were one to,
          // the request goes on rather than fail on its limit.
          () => from(request, reply, done, i + 1, ip),
        );
        return;
      }
      // A hook that answers does not call done(): Fastify stops at the sent reply.
      if (outcome) return respond(request, reply, outcome);
    }
    done();
  };
  // request.ip runs proxy-addr over X-Forwarded-For each time it is read: once per request.
  return (request, reply, done) => from(request, reply, done, 0, request.ip);
}

function addRouteHook(route: RouteOptions, stage: LimitStage, hook: Hook): void {
  const existing = route[stage];
  route[stage] = existing === undefined ? [hook] : [...([] as Hook[]).concat(existing as Hook | Hook[]), hook];
}

function defaultResponse(_request: FastifyRequest, reply: FastifyReply, refusal: Refusal): void {
  sendOAuthError(reply, tooManyRequests(refusal));
}

/** The 429 of a refusal (RFC 6749-style body, Retry-After), wherever the refusal is decided. */
export function tooManyRequests(refusal: Refusal): TooManyRequestsError {
  return new TooManyRequestsError(
    refusal.retryAfterSeconds,
    `Too many requests to ${refusal.rule.subject}; retry after ${refusal.retryAfterSeconds} seconds`,
  );
}
