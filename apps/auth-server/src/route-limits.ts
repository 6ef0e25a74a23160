import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { OAUTH_PATHS } from '@platform/contracts';
import { sendOAuthError } from '@platform/oauth-errors';
import { addressBucket, type RateLimitStore, oauthRateLimitRules, registerRateLimits, tooManyRequests } from '@platform/rate-limits';
import type { FastifyRequest } from 'fastify';
import { readClientCredentials } from './client-auth/client-credentials';
import { FormParams } from './http/form-params';
import type { AuthConfig } from './config/auth-config';
import { RATE_LIMIT_STORE } from './rate-limits/rate-limit-store';
import { LimitTrips } from './security-events/limit-trips';
import { rateLimitExceeded } from './security-events/recorded-events';
import { SecurityEvents } from './security-events/security-events';
import { TokenEndpointLimits } from './token/token-endpoint-limits';

/**
 * Every route limit of the authorization server on its Fastify instance, in one call for
 * bootstrap (after NestFactory.create, before init), all per caller address before any client
 * is authenticated: registration per address, the token endpoint per address (loose) and the
 * address refused for its failed token requests, introspection per named caller and address.
 * What is counted once the request is known (per authenticated client, grant, user, failures)
 * is TokenEndpointLimits'. One counter store (Redis when REDIS_URL is set) serves them and the
 * LoginThrottle. Client addresses come from X-Forwarded-For only from TRUSTED_PROXIES
 * (Fastify's trustProxy, set in bootstrap). A caller's first refusal under a limit is a security
 * event (LimitTrips), recorded without holding up the 429.
 */
export async function registerAuthServerLimits(app: NestFastifyApplication, config: AuthConfig): Promise<void> {
  const { rateLimits } = config.limits;
  const fastify = app.getHttpAdapter().getInstance();
  const events = app.get(SecurityEvents, { strict: false });
  const trips = new LimitTrips();
  await registerRateLimits(fastify, {
    store: app.get<RateLimitStore>(RATE_LIMIT_STORE, { strict: false }),
    enabled: rateLimits.enabled,
    rules: oauthRateLimitRules(rateLimits, OAUTH_PATHS, namedClientId),
    checks: [app.get(TokenEndpointLimits, { strict: false }).failureCheck()],
    respond: (request, reply, refusal) => {
      const address = request.ip;
      if (trips.tripped(refusal.rule.name, addressBucket(address), refusal.retryAfterSeconds)) {
        // Never rejects (SecurityEvents.record); the caller is answered at once.
        void events.record(rateLimitExceeded(refusal.rule.name, refusal.retryAfterSeconds, { address, requestId: request.id }));
      }
      sendOAuthError(reply, tooManyRequests(refusal));
    },
  });
}

/** The client_id an introspection request names, read exactly as client authentication reads it. */
export function namedClientId(request: FastifyRequest): string | undefined {
  try {
    return readClientCredentials(FormParams.from(request.body), request.headers.authorization).clientId;
  } catch {
    // Unreadable credentials are refused by the endpoint itself.
    return undefined;
  }
}
