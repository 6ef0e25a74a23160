import { Injectable, Optional } from '@nestjs/common';
import { Counter } from 'prom-client';
import { AuthMetrics } from '../observability/auth-metrics';

/** The limits the token endpoint counts as a request goes on, by the name each refusal carries. */
export const TOKEN_ENDPOINT_LIMIT_NAMES = ['token:failures:ip', 'token:grant', 'token:user', 'token:client'] as const;

/**
 * The token endpoint's own series on the service's registry: requests refused per limit (the
 * route hooks' refusals show as 429s in http_request_duration_seconds_count), and stale-session presentations
 * of rotated-out refresh tokens (grants/refresh-reuse.ts), which keep the grant: a rise there is
 * worth a look (a client that reuses old tokens, or a thief at the same address).
 */
@Injectable()
export class TokenEndpointMetrics {
  private readonly limited?: Counter<'limit'>;
  private readonly staleSessions?: Counter;

  // Optional: test modules built without the app's ObservabilityModule still work.
  constructor(@Optional() metrics?: AuthMetrics) {
    if (!metrics) return;
    this.limited = new Counter({
      name: 'oauth_token_requests_limited_total',
      help: 'Token endpoint requests refused (429) by a limit counted per address failures, grant, user or authenticated client',
      labelNames: ['limit'] as const,
      registers: [metrics.registry],
    });
    this.staleSessions = new Counter({
      name: 'oauth_refresh_stale_sessions_total',
      help: 'Rotated-out refresh tokens presented after the reuse window from the address that rotated them: refused, grant kept',
      registers: [metrics.registry],
    });
    for (const limit of TOKEN_ENDPOINT_LIMIT_NAMES) this.limited.inc({ limit }, 0);
  }

  refused(limit: string): void {
    this.limited?.inc({ limit });
  }

  staleSession(): void {
    this.staleSessions?.inc();
  }
}
