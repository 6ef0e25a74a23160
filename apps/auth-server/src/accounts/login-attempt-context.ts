import { clientIp, trustedProxyList } from '@platform/rate-limits';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AsyncLocalStorage } from 'node:async_hooks';
import { OAUTH_PATHS } from '../discovery/endpoints';

/** POST target of the login form (authorize/authorize.service.ts LOGIN_ACTION). */
const LOGIN_PATH = `${OAUTH_PATHS.authorization}/login`;

/** What the password check learns about the request it runs in. */
export interface LoginAttempt {
  /** The client's address, trusted proxies resolved. */
  ip: string;
  /** Set when the attempt was refused: the Retry-After of the 429. */
  retryAfterSeconds?: number;
}

const storage = new AsyncLocalStorage<LoginAttempt>();
const attempts = new WeakMap<FastifyRequest, LoginAttempt>();

/** The login attempt being handled, when registerLoginThrottle runs on this server. */
export function currentLoginAttempt(): LoginAttempt | undefined {
  return storage.getStore();
}

export interface LoginThrottleOptions {
  /** The same list as the rate limits and Fastify's trustProxy (TRUSTED_PROXIES). */
  trustedProxies: readonly string[];
}

/**
 * Gives the password check (AccountsService → LoginThrottle) the client's address, so that
 * failures are counted per address as well as per account, and puts `Retry-After` on the 429
 * page. The authorize controller and its error page stay unaware: the address travels in an
 * AsyncLocalStorage entered after the form body is parsed, around the rest of the request.
 * Without this plugin, throttling still works per account (and the 429 page has no Retry-After).
 */
export function registerLoginThrottle(fastify: FastifyInstance, options: LoginThrottleOptions): void {
  const trusted = trustedProxyList(options.trustedProxies);
  fastify.addHook('preHandler', (request, _reply, done) => {
    if (request.routeOptions.url !== LOGIN_PATH || request.method !== 'POST') {
      done();
      return;
    }
    const attempt: LoginAttempt = { ip: clientIp({ headers: request.headers, socket: request.raw.socket }, trusted) };
    attempts.set(request, attempt);
    // Callback style on purpose: the handler runs synchronously inside done(), so inside run().
    storage.run(attempt, done);
  });
  fastify.addHook('onSend', async (request, reply, payload) => {
    const refused = reply.statusCode === 429 ? attempts.get(request)?.retryAfterSeconds : undefined;
    if (refused !== undefined && !reply.hasHeader('retry-after')) reply.header('retry-after', String(refused));
    return payload;
  });
}
