import { envProblems } from '@platform/operations-config';
import { type Limit, type OAuthRateLimits, trustedProxiesSchema } from '@platform/rate-limits';
import { z } from 'zod';
import { ConfigError } from './config-error';

/**
 * Every limit of the authorization server (request rates, login backoff, retention of dead
 * rows), validated once at start like the rest of the configuration: a malformed variable
 * stops the service with a message that names it. Defaults are for one public origin with
 * its gateway on the same host.
 */
const count = (fallback: number) => z.coerce.number().int().min(1).max(1_000_000_000).default(fallback);
const seconds = (fallback: number) => z.coerce.number().int().min(1).max(365 * 24 * 3600).default(fallback);
const booleanFlag = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');

export const LimitsEnvSchema = z.object({
  /** false: no request rate limits (login backoff stays: it protects accounts, not capacity). */
  RATE_LIMITS_ENABLED: booleanFlag.default(true),
  /**
   * Peers whose X-Forwarded-For is believed, comma-separated IPs or CIDR ranges, or `loopback`:
   * the gateway's address. Fastify's `trustProxy` must be given the same list.
   */
  TRUSTED_PROXIES: trustedProxiesSchema,

  /**
   * RFC 7591 registration: clients per client address, per RATE_LIMIT_REGISTRATION_WINDOW_SECONDS.
   * Answers one address registering clients in bulk. Hosted agents come as one client_id (their
   * Client ID Metadata Document URL) and register nothing; an agent that registers a client per
   * user from one egress address needs this raised.
   */
  RATE_LIMIT_REGISTRATION_PER_IP: count(30),
  /** The window of RATE_LIMIT_REGISTRATION_PER_IP. */
  RATE_LIMIT_REGISTRATION_WINDOW_SECONDS: seconds(3600),
  /**
   * Token endpoint requests per client address, counted before the body is read (a flood guard):
   * loose on purpose, since a hosted agent sends every user's refresh from a few egress
   * addresses. 3,000 a minute is ~17× the ~170 a minute of 10,000 users refreshing hourly through
   * one address, and one address's share of a single instance's capacity stays small.
   */
  RATE_LIMIT_TOKEN_PER_IP: count(3000),
  /** The window of RATE_LIMIT_TOKEN_PER_IP, _PER_GRANT, _PER_USER and _PER_AUTHENTICATED_CLIENT. */
  RATE_LIMIT_TOKEN_WINDOW_SECONDS: seconds(60),
  /**
   * Token endpoint failures that look like guessing, per client address: an unknown client or a
   * wrong secret or assertion (invalid_client), a code or refresh token this server never issued
   * to the client, a PKCE verifier or redirect_uri that does not match. Past it the address is
   * refused (429) until the window ends. Expired, revoked or rotated-out tokens are ordinary and
   * never counted, nor are successes: a hosted agent's shared address is not throttled by them.
   */
  RATE_LIMIT_TOKEN_FAILURES_PER_IP: count(30),
  /** The window of RATE_LIMIT_TOKEN_FAILURES_PER_IP (also how long a throttled address waits at most). */
  RATE_LIMIT_TOKEN_FAILURES_WINDOW_SECONDS: seconds(60),
  /**
   * Refreshes per grant (one authorization of one user and client, all its sessions), counted
   * after each success and refused before the next rotation: a runaway refresh loop. Hourly
   * refreshes of a few dozen sessions stay far below it.
   */
  RATE_LIMIT_TOKEN_PER_GRANT: count(60),
  /** Tokens issued per user, every grant and client of theirs together (codes exchanged and refreshes). */
  RATE_LIMIT_TOKEN_PER_USER: count(300),
  /**
   * Token requests per client that authenticated (a client secret or a private_key_jwt
   * assertion), counted once authentication succeeded: only the client itself can spend it.
   * Public clients have no per-client budget, since anyone can name their client_id.
   */
  RATE_LIMIT_TOKEN_PER_AUTHENTICATED_CLIENT: count(600),
  /** Introspection per caller and address (the resource server introspects each new token once; answers are cached). */
  RATE_LIMIT_INTROSPECTION_PER_CALLER: count(6000),
  /** The window of RATE_LIMIT_INTROSPECTION_PER_CALLER. */
  RATE_LIMIT_INTROSPECTION_WINDOW_SECONDS: seconds(60),
  /**
   * A rotated-out refresh token presented after REFRESH_REUSE_GRACE_SECONDS from the address
   * bucket whose request rotated it out is a stale session of the same client (agent CLIs keep
   * one token for many sessions): true answers invalid_grant and keeps the grant (logged,
   * counted in oauth_refresh_stale_sessions_total); false revokes the grant as any other reuse
   * (RFC 9700 §4.14.2's strict rotation). From any other address, reuse always revokes.
   */
  REFRESH_STALE_SESSIONS_KEEP_GRANT: booleanFlag.default(true),

  /** Failed sign-ins allowed per account (by email, whether or not it exists) before the backoff starts. */
  LOGIN_FREE_FAILURES_PER_ACCOUNT: count(5),
  /** The same per client address (password spraying across accounts). */
  LOGIN_FREE_FAILURES_PER_IP: count(30),
  /** First lock after the free failures; doubles with every further failure. */
  LOGIN_BACKOFF_BASE_SECONDS: seconds(1),
  /** The longest lock (the doubling stops here): how long anyone can delay an account's owner at most. */
  LOGIN_BACKOFF_MAX_SECONDS: seconds(900),
  /** Failures are forgotten this long after the last one (and a successful sign-in clears its account's). */
  LOGIN_FAILURES_FORGOTTEN_AFTER_SECONDS: seconds(3600),
  /**
   * Sign-ins checked at the same moment for one account: a burst of parallel guesses gets no
   * further than this before its failures lock the key.
   */
  LOGIN_MAX_CONCURRENT_PER_ACCOUNT: count(10),
  /** The same for one client address. */
  LOGIN_MAX_CONCURRENT_PER_IP: count(50),

  /** The clean-up job (maintenance/): off only for tests that drive it by hand. */
  MAINTENANCE_ENABLED: booleanFlag.default(true),
  /** How often the clean-up job runs. */
  MAINTENANCE_INTERVAL_SECONDS: seconds(600),
  /** Rows per delete transaction. */
  MAINTENANCE_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(500),
  /** Registered clients that never completed an authorization are deleted after this. */
  CLIENT_UNUSED_TTL_SECONDS: seconds(24 * 3600),
  /**
   * Expired or revoked codes and tokens are kept this long after they stopped working, so a
   * late replay is still recognised as one (and revokes its grant) rather than unknown.
   */
  MAINTENANCE_GRACE_SECONDS: seconds(24 * 3600),
});

export interface BackoffLimits {
  freeFailures: number;
  baseDelaySeconds: number;
  maxDelaySeconds: number;
  forgetAfterSeconds: number;
  maxConcurrent: number;
}

/** The token endpoint's limits that are counted as the request goes on (token/token-endpoint-limits.ts). */
export interface TokenEndpointLimitsConfig {
  failuresPerIp: Limit;
  perGrant: Limit;
  perUser: Limit;
  perAuthenticatedClient: Limit;
}

export interface LimitsConfig {
  rateLimits: OAuthRateLimits & { enabled: boolean; trustedProxies: string[] };
  tokenEndpoint: TokenEndpointLimitsConfig;
  /** REFRESH_STALE_SESSIONS_KEEP_GRANT. */
  refreshStaleSessionsKeepGrant: boolean;
  login: { account: BackoffLimits; ip: BackoffLimits };
  maintenance: {
    enabled: boolean;
    intervalSeconds: number;
    batchSize: number;
    clientUnusedTtlSeconds: number;
    graceSeconds: number;
  };
}

export function loadLimitsConfig(env: NodeJS.ProcessEnv = process.env): LimitsConfig {
  const parsed = LimitsEnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = envProblems(parsed.error).map((line) => `  ${line}`);
    throw new ConfigError(`Invalid limits of the auth-server:\n${problems.join('\n')}`);
  }
  const e = parsed.data;
  if (e.LOGIN_BACKOFF_MAX_SECONDS < e.LOGIN_BACKOFF_BASE_SECONDS) {
    throw new ConfigError('LOGIN_BACKOFF_MAX_SECONDS: must not be below LOGIN_BACKOFF_BASE_SECONDS');
  }
  const backoff = (freeFailures: number, maxConcurrent: number): BackoffLimits => ({
    freeFailures,
    baseDelaySeconds: e.LOGIN_BACKOFF_BASE_SECONDS,
    maxDelaySeconds: e.LOGIN_BACKOFF_MAX_SECONDS,
    forgetAfterSeconds: e.LOGIN_FAILURES_FORGOTTEN_AFTER_SECONDS,
    maxConcurrent,
  });
  const tokenWindow = e.RATE_LIMIT_TOKEN_WINDOW_SECONDS;
  return {
    rateLimits: {
      enabled: e.RATE_LIMITS_ENABLED,
      trustedProxies: e.TRUSTED_PROXIES,
      registrationPerIp: { max: e.RATE_LIMIT_REGISTRATION_PER_IP, windowSeconds: e.RATE_LIMIT_REGISTRATION_WINDOW_SECONDS },
      tokenPerIp: { max: e.RATE_LIMIT_TOKEN_PER_IP, windowSeconds: tokenWindow },
      introspectionPerCaller: { max: e.RATE_LIMIT_INTROSPECTION_PER_CALLER, windowSeconds: e.RATE_LIMIT_INTROSPECTION_WINDOW_SECONDS },
    },
    tokenEndpoint: {
      failuresPerIp: { max: e.RATE_LIMIT_TOKEN_FAILURES_PER_IP, windowSeconds: e.RATE_LIMIT_TOKEN_FAILURES_WINDOW_SECONDS },
      perGrant: { max: e.RATE_LIMIT_TOKEN_PER_GRANT, windowSeconds: tokenWindow },
      perUser: { max: e.RATE_LIMIT_TOKEN_PER_USER, windowSeconds: tokenWindow },
      perAuthenticatedClient: { max: e.RATE_LIMIT_TOKEN_PER_AUTHENTICATED_CLIENT, windowSeconds: tokenWindow },
    },
    refreshStaleSessionsKeepGrant: e.REFRESH_STALE_SESSIONS_KEEP_GRANT,
    login: {
      account: backoff(e.LOGIN_FREE_FAILURES_PER_ACCOUNT, e.LOGIN_MAX_CONCURRENT_PER_ACCOUNT),
      ip: backoff(e.LOGIN_FREE_FAILURES_PER_IP, e.LOGIN_MAX_CONCURRENT_PER_IP),
    },
    maintenance: {
      enabled: e.MAINTENANCE_ENABLED,
      intervalSeconds: e.MAINTENANCE_INTERVAL_SECONDS,
      batchSize: e.MAINTENANCE_BATCH_SIZE,
      clientUnusedTtlSeconds: e.CLIENT_UNUSED_TTL_SECONDS,
      graceSeconds: e.MAINTENANCE_GRACE_SECONDS,
    },
  };
}
