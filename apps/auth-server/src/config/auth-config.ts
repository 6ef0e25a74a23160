import { introspectionClientEnv, productionIntrospectionSecretProblem, withoutTrailingSlashes } from '@platform/contracts';
import { envProblems, hostEnv, operationsConfig, operationsEnv, type OperationsConfig, portEnv } from '@platform/operations-config';
import { z } from 'zod';
import { ConfigError } from './config-error';
import { type CimdConfig, loadCimdConfig } from './cimd-config';
import { type LimitsConfig, loadLimitsConfig } from './limits-config';
import { loadSecurityEventsConfig, type SecurityEventsConfig } from './security-events-config';

export { ConfigError };

/**
 * Every variable the authorization server reads, validated once at start. A missing or
 * malformed variable stops the service with a message that names it.
 */
const durationSeconds = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const booleanFlag = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1');

export const EnvSchema = z.object({
  /**
   * `production` holds the start to production's rules: an https issuer, Redis, a configured signing key, no
   * demo data.
   */
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  /** The address the server listens on (`0.0.0.0`: every interface). */
  HOST: hostEnv,
  /** The authorization server's own port, where the gateway forwards its routes; 0 picks a free one. */
  AUTH_PORT: portEnv(3001),
  /** The public origin clients see (the gateway); the issuer identifier. */
  PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:3000'),
  /** PostgreSQL holding the authorization server's tables (the `auth` schema's migrations). */
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }),
  /** Connections of the PostgreSQL pool (1 in the embedded mode: PGlite serves one session). */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  /**
   * Redis shared by every replica of both services: revocation events, rate limits, login backoff.
   * Unset: in-process.
   */
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  /** JSON array of private RSA JWKs (RS256, each with a kid); the first one signs. */
  OIDC_SIGNING_KEYS: z.string().min(1).optional(),
  /** A file holding the same JSON; generated on first start when EMBEDDED_MODE is on. */
  OIDC_SIGNING_KEYS_FILE: z.string().min(1).optional(),
  /**
   * How long a key must have been published (in every replica's JWKS, which serves the keys of
   * all) before it signs; until then the next key of the set signs. Above the JWKS's max-age
   * (300 s), so that no client verifies an ID token against a key set cached before its key was
   * published (keys/signing-keys.service.ts). 0 signs with the first key at once.
   */
  OIDC_SIGNING_KEY_ACTIVATION_SECONDS: z.coerce.number().int().min(0).max(7 * 24 * 3600).default(600),
  /**
   * Internal URL of the resource server: the login and consent pages read the school's public branding there,
   * and the security events are sent to its audit log there (never through the public origin).
   */
  RESOURCE_SERVER_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:3002'),
  /** The school whose branding the login page shows before anyone has signed in. */
  DEFAULT_SCHOOL_ID: z.string().min(1).max(100).default('demo-school'),
  /** The resource server's credentials for RFC 7662 introspection. */
  ...introspectionClientEnv,
  /** Lifetime of access tokens and ID tokens. */
  ACCESS_TOKEN_TTL_SECONDS: durationSeconds(3600),
  /**
   * Lifetime of a refresh token (each rotation issues one with the whole lifetime); also how long a consent is
   * remembered unused.
   */
  REFRESH_TOKEN_TTL_SECONDS: durationSeconds(30 * 24 * 3600),
  /** Lifetime of an authorization code. */
  AUTHORIZATION_CODE_TTL_SECONDS: durationSeconds(60),
  /** Lifetime of a sign-in session (its cookie). */
  SESSION_TTL_SECONDS: durationSeconds(12 * 3600),
  /**
   * After a refresh token rotates, the one it replaced still gets a token pair for this long
   * (parallel refreshes of one client); later reuse revokes the grant. 0 turns the window off;
   * at most 5 minutes, since it is time in which a stolen refresh token goes unnoticed.
   */
  REFRESH_REUSE_GRACE_SECONDS: z.coerce.number().int().min(0).max(300).default(30),
  /**
   * How old a DPoP proof (RFC 9449) may be at the token endpoint: its iat no earlier than this many seconds ago
   * (and no later than 5 s ahead). Its jti is remembered as long, on every replica (used_dpop_proofs).
   */
  DPOP_PROOF_MAX_AGE_SECONDS: z.coerce.number().int().min(5).max(300).default(60),
  /**
   * Server-provided DPoP nonces at the token endpoint (RFC 9449 §8): a proof must carry a nonce this server issued
   * in the last 5 to 10 minutes, else `use_dpop_nonce` with a fresh one in `DPoP-Nonce`. Bounds how long before its
   * use a client can have made a proof. Needs DPOP_NONCE_SECRET.
   */
  DPOP_NONCES: booleanFlag.default(false),
  /**
   * The secret the DPoP nonces are derived from (HKDF-SHA256), at least 32 characters of high entropy, the same on
   * every replica (a nonce issued by one is accepted by all). Required when DPOP_NONCES is on; changing it voids the
   * nonces issued (clients get `use_dpop_nonce` once and retry).
   */
  DPOP_NONCE_SECRET: z.string().min(32).optional(),
  /** Set by the launcher when it runs the embedded PostgreSQL. */
  EMBEDDED_MODE: booleanFlag.default(false),
  /** Seed the demo school and demo account (refused in production). Unset: seeded in the embedded mode, outside production. */
  SEED_DEMO_DATA: booleanFlag.optional(),
  /** LOG_LEVEL, HEALTH_CHECK_TIMEOUT_MS, SHUTDOWN_TIMEOUT_MS. */
  ...operationsEnv,
});

export interface AuthConfig {
  env: 'development' | 'test' | 'production';
  host: string;
  port: number;
  /** Issuer identifier: the public origin, no trailing slash (RFC 8414 §2). */
  issuer: string;
  /** The platform API's canonical resource URI (RFC 8707): the default audience. */
  apiResource: string;
  database: { url: string; poolSize: number };
  redisUrl?: string;
  /** activationSeconds: OIDC_SIGNING_KEY_ACTIVATION_SECONDS (absent in a hand-made config: the default). */
  signingKeys: { json?: string; file?: string; activationSeconds?: number };
  introspectionClient: { id: string; secret: string };
  /** Where the pages find the school's public profile and appearance. */
  branding: { resourceServerUrl: string; defaultSchoolId: string };
  /** Seconds. refreshReuseGrace: see REFRESH_REUSE_GRACE_SECONDS (token/grants/refresh-reuse.ts). */
  ttl: { accessToken: number; refreshToken: number; authorizationCode: number; session: number; refreshReuseGrace: number };
  embedded: boolean;
  seedDemoData: boolean;
  /** Cookies get `Secure` whenever the public origin is https. */
  secureCookies: boolean;
  /** Log level, readiness deadline, shutdown deadline (LOG_LEVEL, HEALTH_CHECK_TIMEOUT_MS, SHUTDOWN_TIMEOUT_MS). */
  operations: OperationsConfig;
  /** Request rate limits, login backoff, clean-up of dead rows (limits-config.ts). */
  limits: LimitsConfig;
  /** Client ID Metadata Documents: CIMD_* variables (cimd-config.ts). */
  cimd: CimdConfig;
  /** Where the security events go and how the relay sends them (security-events-config.ts). */
  securityEvents: SecurityEventsConfig;
  /** DPoP at the token endpoint (RFC 9449): DPOP_PROOF_MAX_AGE_SECONDS; the nonce secret when DPOP_NONCES is on. */
  dpop: { proofMaxAgeSeconds: number; nonceSecret?: string };
}


/**
 * Without Redis each replica would count rate limits and login failures on its own and never
 * hear the others' revocations (their in-process state goes on trusting a revoked token).
 * The embedded mode (one process each, npm start) keeps its in-process bus; it is refused in
 * production anyway.
 */
const REDIS_URL_IN_PRODUCTION =
  'REDIS_URL: production needs Redis, shared by every replica of both services (revocation events, rate limits, login backoff)';

const RESOURCE_SERVER_URL_IN_PRODUCTION =
  "RESOURCE_SERVER_URL: production needs the resource server's internal URL (the security events' audit log, the pages' branding)";

export function loadAuthConfig(env: NodeJS.ProcessEnv = process.env): AuthConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = envProblems(parsed.error).map((line) => `  ${line}`);
    throw new ConfigError(`Invalid configuration of the auth-server:\n${problems.join('\n')}`);
  }
  const e = parsed.data;
  const issuer = withoutTrailingSlashes(e.PUBLIC_BASE_URL);
  const seedDemoData = e.SEED_DEMO_DATA ?? (e.NODE_ENV !== 'production' && e.EMBEDDED_MODE);
  const publicUrl = new URL(e.PUBLIC_BASE_URL);
  if (publicUrl.search || publicUrl.hash) {
    throw new ConfigError('PUBLIC_BASE_URL: the issuer must have no query or fragment (RFC 8414 §2)');
  }
  if (e.DPOP_NONCES && !e.DPOP_NONCE_SECRET) {
    throw new ConfigError('DPOP_NONCE_SECRET: DPOP_NONCES needs a secret shared by every replica (at least 32 characters)');
  }
  if (e.NODE_ENV === 'production') {
    if (publicUrl.protocol !== 'https:') throw new ConfigError('PUBLIC_BASE_URL: production needs an https origin (RFC 8414 §2)');
    if (seedDemoData) throw new ConfigError('SEED_DEMO_DATA: the demo account is never created in production');
    if (e.EMBEDDED_MODE) throw new ConfigError('EMBEDDED_MODE: production needs a real PostgreSQL');
    if (!e.REDIS_URL) throw new ConfigError(REDIS_URL_IN_PRODUCTION);
    // Its default is this host's port 3002: in production the security events would wait in the outbox for good.
    if (!env['RESOURCE_SERVER_URL']) throw new ConfigError(RESOURCE_SERVER_URL_IN_PRODUCTION);
    if (!e.OIDC_SIGNING_KEYS && !e.OIDC_SIGNING_KEYS_FILE) {
      throw new ConfigError('OIDC_SIGNING_KEYS: production needs a configured signing key');
    }
    const secretProblem = productionIntrospectionSecretProblem(e.INTROSPECTION_CLIENT_SECRET);
    if (secretProblem) throw new ConfigError(secretProblem);
  }
  return {
    env: e.NODE_ENV,
    host: e.HOST,
    port: e.AUTH_PORT,
    issuer,
    apiResource: issuer,
    database: { url: e.DATABASE_URL, poolSize: e.EMBEDDED_MODE ? 1 : e.DATABASE_POOL_SIZE },
    redisUrl: e.REDIS_URL,
    signingKeys: { json: e.OIDC_SIGNING_KEYS, file: e.OIDC_SIGNING_KEYS_FILE, activationSeconds: e.OIDC_SIGNING_KEY_ACTIVATION_SECONDS },
    introspectionClient: { id: e.INTROSPECTION_CLIENT_ID, secret: e.INTROSPECTION_CLIENT_SECRET },
    branding: { resourceServerUrl: withoutTrailingSlashes(e.RESOURCE_SERVER_URL), defaultSchoolId: e.DEFAULT_SCHOOL_ID },
    ttl: {
      accessToken: e.ACCESS_TOKEN_TTL_SECONDS,
      refreshToken: e.REFRESH_TOKEN_TTL_SECONDS,
      authorizationCode: e.AUTHORIZATION_CODE_TTL_SECONDS,
      session: e.SESSION_TTL_SECONDS,
      refreshReuseGrace: e.REFRESH_REUSE_GRACE_SECONDS,
    },
    embedded: e.EMBEDDED_MODE,
    seedDemoData,
    secureCookies: issuer.startsWith('https://'),
    operations: operationsConfig(e),
    limits: loadLimitsConfig(env),
    cimd: loadCimdConfig(env),
    securityEvents: loadSecurityEventsConfig(env, withoutTrailingSlashes(e.RESOURCE_SERVER_URL)),
    dpop: { proofMaxAgeSeconds: e.DPOP_PROOF_MAX_AGE_SECONDS, ...(e.DPOP_NONCES ? { nonceSecret: e.DPOP_NONCE_SECRET } : {}) },
  };
}

/** Injection token for the validated configuration. */
export const AUTH_CONFIG = Symbol('AUTH_CONFIG');
