import { Logger } from '@nestjs/common';
import { sendOAuthError, TooManyRequestsError } from '@platform/oauth-errors';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { LocalFirstWindows } from './local-first-windows';
import { MemoryRateLimitStore } from './memory-store';
import type { RateLimitStore, WindowHit } from './store';

export interface RateLimitRule {
  /** Prefix of the rule's keys and name in logs, e.g. "token:client". */
  name: string;
  /** The route as registered, so encoded or odd spellings of the path cannot dodge it. */
  method: string;
  url: string;
  /**
   * `onRequest`: counted before the body is read (rules keyed by address, so a flood of large
   * bodies is cut early). `preHandler`: after parsing, for keys taken from the body (client_id).
   */
  stage: 'onRequest' | 'preHandler';
  /** The request's key under this rule; undefined when the rule does not apply to it. */
  key(request: FastifyRequest, ip: string): string | undefined;
  max: number;
  windowSeconds: number;
  /** Named in the error description, e.g. "the token endpoint". */
  subject: string;
}

export interface Refusal {
  rule: RateLimitRule;
  retryAfterSeconds: number;
}

export interface RegisterRateLimitsOptions {
  store: RateLimitStore;
  rules: readonly RateLimitRule[];
  /** Off: nothing is registered (RATE_LIMITS_ENABLED=false). */
  enabled?: boolean;
  /** Sends the answer to a refused request; the default is 429 with an RFC 6749-style JSON body. */
  respond?: (request: FastifyRequest, reply: FastifyReply, refusal: Refusal) => void;
}

/** Counts one request of a key in a fixed window: at once when the count is known here, a promise when the shared store is asked. */
interface WindowCounter {
  hit(key: string, windowMs: number, max: number): WindowHit | Promise<WindowHit>;
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
 * (used until issue 12): of that plugin only the comparison was still in use (keys, stores and
 * answers are ours), and it made every limited request a chain of promises and callbacks even
 * when the count was known in this process (most requests, see LocalFirstWindows). Decided
 * synchronously, the introspection's limit costs ~3 µs of its CPU (limits on against off, side
 * by side).
 */
export async function registerRateLimits(fastify: FastifyInstance, options: RegisterRateLimitsOptions): Promise<void> {
  if (options.enabled === false || options.rules.length === 0) return;
  const logger = new Logger('RateLimits');
  const respond = options.respond ?? defaultResponse;
  // In-process counters gain nothing from a batching layer; shared ones save a round trip per hit.
  const store = options.store;
  const counter: WindowCounter =
    store instanceof MemoryRateLimitStore ? { hit: (key, windowMs) => store.hitSync(key, windowMs) } : new LocalFirstWindows(store);
  if (counter instanceof LocalFirstWindows) fastify.addHook('onClose', async () => counter.flush());

  const limiters = options.rules.map((rule) => new RuleLimiter(rule, counter, logger));
  fastify.addHook('onRoute', (route) => {
    const methods = ([] as string[]).concat(route.method);
    for (const stage of ['onRequest', 'preHandler'] as const) {
      const applicable = limiters.filter(({ rule }) => rule.stage === stage && rule.url === route.url && methods.includes(rule.method));
      if (applicable.length > 0) addRouteHook(route, stage, limitHook(applicable, respond));
    }
  });
}

/** One rule's window counting and its refusals (logged at most every 10 s, with how many). */
class RuleLimiter {
  private readonly windowMs: number;
  private refused = 0;
  private lastLog = 0;

  constructor(
    readonly rule: RateLimitRule,
    private readonly counter: WindowCounter,
    private readonly logger: Logger,
  ) {
    this.windowMs = rule.windowSeconds * 1000;
  }

  /** Undefined: the request may go on (not counted under this rule, or within its limit). */
  check(request: FastifyRequest, ip: string): Refusal | undefined | Promise<Refusal | undefined> {
    const key = this.rule.key(request, ip);
    if (key === undefined) return undefined;
    const hit = this.counter.hit(`${this.rule.name}:${key}`, this.windowMs, this.rule.max);
    return hit instanceof Promise ? hit.then((answer) => this.judge(answer)) : this.judge(hit);
  }

  private judge(hit: WindowHit): Refusal | undefined {
    if (hit.count <= this.rule.max) return undefined;
    this.refused++;
    if (Date.now() - this.lastLog > 10_000) {
      this.logger.warn(`${this.rule.name}: ${this.refused} request(s) refused (limit ${this.rule.max} per ${this.rule.windowSeconds} s)`);
      this.refused = 0;
      this.lastLog = Date.now();
    }
    return { rule: this.rule, retryAfterSeconds: Math.max(1, Math.ceil(hit.resetInMs / 1000)) };
  }
}

/**
 * A callback hook over a route's rules of one stage, in order: the first refusal answers.
 * Synchronous while every count is known in this process; a promise only for a rule whose
 * counter asks the shared store.
 */
function limitHook(limiters: readonly RuleLimiter[], respond: NonNullable<RegisterRateLimitsOptions['respond']>): Hook {
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

function addRouteHook(route: RouteOptions, stage: 'onRequest' | 'preHandler', hook: Hook): void {
  const existing = route[stage];
  route[stage] = existing === undefined ? [hook] : [...([] as Hook[]).concat(existing as Hook | Hook[]), hook];
}

function defaultResponse(_request: FastifyRequest, reply: FastifyReply, refusal: Refusal): void {
  sendOAuthError(
    reply,
    new TooManyRequestsError(
      refusal.retryAfterSeconds,
      `Too many requests to ${refusal.rule.subject}; retry after ${refusal.retryAfterSeconds} seconds`,
    ),
  );
}
