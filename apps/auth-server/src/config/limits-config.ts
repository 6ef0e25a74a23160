import { envProblems } from '@platform/observability';
import { type OAuthRateLimits, trustedProxiesSchema } from '@platform/rate-limits';
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

  /** RFC 7591 registration: clients per client address. */
  RATE_LIMIT_REGISTRATION_PER_IP: count(30),
  RATE_LIMIT_REGISTRATION_WINDOW_SECONDS: seconds(3600),
  /** Token endpoint: per client_id named in the request, and per client address. */
  RATE_LIMIT_TOKEN_PER_CLIENT: count(60),
  RATE_LIMIT_TOKEN_PER_IP: count(300),
  RATE_LIMIT_TOKEN_WINDOW_SECONDS: seconds(60),
  /** Introspection per caller (the resource server introspects each new token once; answers are cached). */
  RATE_LIMIT_INTROSPECTION_PER_CALLER: count(6000),
  RATE_LIMIT_INTROSPECTION_WINDOW_SECONDS: seconds(60),

  /** Failed sign-ins allowed per account (by email, whether or not it exists) before the backoff starts. */
  LOGIN_FREE_FAILURES_PER_ACCOUNT: count(5),
  /** The same per client address (password spraying across accounts). */
  LOGIN_FREE_FAILURES_PER_IP: count(30),
  /** First lock after the free failures; doubles with every further failure. */
  LOGIN_BACKOFF_BASE_SECONDS: seconds(1),
  LOGIN_BACKOFF_MAX_SECONDS: seconds(900),
  /** Failures are forgotten this long after the last one (and a successful sign-in clears its account's). */
  LOGIN_FAILURES_FORGOTTEN_AFTER_SECONDS: seconds(3600),
  /**
   * Sign-ins checked at the same moment for one account / one address: a burst of parallel
   * guesses gets no further than this before its failures lock the key.
   */
  LOGIN_MAX_CONCURRENT_PER_ACCOUNT: count(10),
  LOGIN_MAX_CONCURRENT_PER_IP: count(50),

  /** The clean-up job (maintenance/): off only for tests that drive it by hand. */
  MAINTENANCE_ENABLED: booleanFlag.default(true),
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

export interface LimitsConfig {
  rateLimits: OAuthRateLimits & { enabled: boolean; trustedProxies: string[] };
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
  return {
    rateLimits: {
      enabled: e.RATE_LIMITS_ENABLED,
      trustedProxies: e.TRUSTED_PROXIES,
      registrationPerIp: { max: e.RATE_LIMIT_REGISTRATION_PER_IP, windowSeconds: e.RATE_LIMIT_REGISTRATION_WINDOW_SECONDS },
      tokenPerClient: { max: e.RATE_LIMIT_TOKEN_PER_CLIENT, windowSeconds: e.RATE_LIMIT_TOKEN_WINDOW_SECONDS },
      tokenPerIp: { max: e.RATE_LIMIT_TOKEN_PER_IP, windowSeconds: e.RATE_LIMIT_TOKEN_WINDOW_SECONDS },
      introspectionPerCaller: { max: e.RATE_LIMIT_INTROSPECTION_PER_CALLER, windowSeconds: e.RATE_LIMIT_INTROSPECTION_WINDOW_SECONDS },
    },
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
