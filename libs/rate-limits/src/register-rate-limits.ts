import rateLimit from '@fastify/rate-limit';
import { Logger } from '@nestjs/common';
import { sendOAuthError, TooManyRequestsError } from '@platform/oauth-errors';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fastifyRateLimitStore } from './fastify-store';
import { LocalFirstWindows } from './local-first-windows';
import { MemoryRateLimitStore } from './memory-store';
import type { RateLimitStore } from './store';

export interface RateLimitRule {
  /** Prefix of the rule's keys and name in logs, e.g. "token:client". */
  name: string;
  /** The route as registered (request.routeOptions), so encoded or odd spellings of the path cannot dodge it. */
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

/**
 * Rate limits on a Fastify instance (call before the server starts listening), counted by
 * @fastify/rate-limit in the given store. Addresses are `request.ip`: give the instance a
 * `trustProxy` list of the proxies whose X-Forwarded-For is believed (never `true`, or any
 * caller picks its own budget). Every refusal is `429 {"error":"too_many_requests",
 * "error_description":…}` with `Retry-After` in seconds.
 */
export async function registerRateLimits(fastify: FastifyInstance, options: RegisterRateLimitsOptions): Promise<void> {
  if (options.enabled === false || options.rules.length === 0) return;
  const logger = new Logger('RateLimits');
  const respond = options.respond ?? defaultResponse;
  // In-process counters gain nothing from a batching layer; shared ones save a round trip per hit.
  const store = options.store;
  const counter =
    store instanceof MemoryRateLimitStore
      ? { hit: (key: string, windowMs: number) => store.hitSync(key, windowMs) }
      : new LocalFirstWindows(store);
  if (counter instanceof LocalFirstWindows) fastify.addHook('onClose', async () => counter.flush());
  await fastify.register(rateLimit, {
    global: false,
    store: fastifyRateLimitStore(counter) as never,
    // Our stores never fail (the Redis one counts in-process during an outage).
    skipOnError: true,
  });

  const limiters = options.rules.map((rule) => {
    const keys = new WeakMap<FastifyRequest, string>();
    const check = fastify.createRateLimit({
      max: rule.max,
      timeWindow: rule.windowSeconds * 1000,
      keyGenerator: (request) => keys.get(request) as string,
    });
    let refused = 0;
    let lastLog = 0;
    return {
      rule,
      async refusal(request: FastifyRequest, ip: string): Promise<Refusal | undefined> {
        const key = rule.key(request, ip);
        if (key === undefined) return undefined;
        keys.set(request, `${rule.name}:${key}`);
        const result = await check(request);
        if (result.isAllowed || !result.isExceeded) return undefined;
        refused++;
        if (Date.now() - lastLog > 10_000) {
          logger.warn(`${rule.name}: ${refused} request(s) refused (limit ${rule.max} per ${rule.windowSeconds} s)`);
          refused = 0;
          lastLog = Date.now();
        }
        return { rule, retryAfterSeconds: Math.max(1, result.ttlInSeconds) };
      },
    };
  });

  const hook = (stage: RateLimitRule['stage']) => {
    // Looked up once per request by route, rather than every rule tested against every request.
    const byRoute = new Map<string, typeof limiters>();
    for (const limiter of limiters.filter((candidate) => candidate.rule.stage === stage)) {
      const route = `${limiter.rule.method} ${limiter.rule.url}`;
      byRoute.set(route, [...(byRoute.get(route) ?? []), limiter]);
    }
    const firstRefusal = async (request: FastifyRequest, applicable: typeof limiters): Promise<Refusal | undefined> => {
      for (const limiter of applicable) {
        const refusal = await limiter.refusal(request, request.ip);
        if (refusal) return refusal;
      }
      return undefined;
    };
    // A callback hook: most routes have no limit, and an async hook costs every request a promise.
    return (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void => {
      const { method, url } = request.routeOptions;
      const applicable = url === undefined ? undefined : byRoute.get(`${method} ${url}`);
      if (applicable === undefined) return done();
      firstRefusal(request, applicable).then((refusal) => {
        // A hook that answers does not call done(): Fastify stops at the sent reply.
        if (refusal) respond(request, reply, refusal);
        else done();
      }, done);
    };
  };
  fastify.addHook('onRequest', hook('onRequest'));
  fastify.addHook('preHandler', hook('preHandler'));
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
