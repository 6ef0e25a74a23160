import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { OAUTH_PATHS } from '@platform/contracts';
import { type RateLimitStore, addressBucket, oauthRateLimitRules, registerRateLimits } from '@platform/rate-limits';
import type { FastifyRequest } from 'fastify';
import { clientIdHost } from '../client-metadata-documents/client-id-url';
import { readClientCredentials } from '../client-auth/client-credentials';
import { FormParams } from '../http/form-params';
import type { AuthConfig } from '../config/auth-config';
import { RATE_LIMIT_STORE } from './login-throttle';

/**
 * Every request limit of the authorization server on its Fastify instance, in one call for
 * bootstrap (after NestFactory.create, before init): registration per address, the token
 * endpoint per client_id and per address, introspection per caller. One counter store (Redis
 * when REDIS_URL is set) serves them and the LoginThrottle. Client addresses come from
 * X-Forwarded-For only from TRUSTED_PROXIES (Fastify's trustProxy, set in bootstrap).
 */
export async function registerAuthServerLimits(app: NestFastifyApplication, config: AuthConfig): Promise<void> {
  const { rateLimits } = config.limits;
  const fastify = app.getHttpAdapter().getInstance();
  await registerRateLimits(fastify, {
    store: app.get<RateLimitStore>(RATE_LIMIT_STORE, { strict: false }),
    enabled: rateLimits.enabled,
    rules: oauthRateLimitRules(rateLimits, OAUTH_PATHS, namedClientId),
  });
}

/** The client_id a token or introspection request names, read exactly as client authentication reads it. */
export function namedClientId(request: FastifyRequest): string | undefined {
  try {
    const clientId = readClientCredentials(FormParams.from(request.body), request.headers.authorization).clientId;
    if (clientId === undefined) return undefined;
    // A client_id URL is public and shared by every user of a hosted product: a budget per host
    // alone would let anyone lock all of them out with a few junk requests. It is counted per
    // host (one site cannot spread requests over many document URLs) and per caller address.
    const host = clientIdHost(clientId);
    return host === null ? clientId : `${host} ${addressBucket(request.ip)}`;
  } catch {
    // Unreadable credentials are refused by the endpoint itself; the per-address limit still counts them.
    return undefined;
  }
}
