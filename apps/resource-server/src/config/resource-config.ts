import { introspectionClientEnv, OAUTH_PATHS, productionIntrospectionSecretProblem, withoutTrailingSlashes } from '@platform/contracts';
import { envProblems, hostEnv, operationsConfig, operationsEnv, type OperationsConfig, portEnv } from '@platform/operations-config';
import { type Limit, trustedProxiesSchema } from '@platform/rate-limits';
import { uploadMaxBytesEnv } from '@platform/route-table';
import { z } from 'zod';
import { RESOURCE_PATHS } from '../common/resource-paths';
import { mcpAllowedOriginsEnv } from '../mcp/mcp-origins';
import { resolvePricingFile } from '../documents/pricing';
import { type EventsConfig, eventsConfig, EventsEnvSchema } from './events-config';

/**
 * Every variable the resource server reads, validated once at start. A missing or malformed
 * variable stops the service with a message that names it.
 */
const booleanFlag = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1');

const seconds = (fallback: number) => z.coerce.number().int().positive().default(fallback);
const count = (fallback: number) => z.coerce.number().int().min(1).max(1_000_000_000).default(fallback);

export const EnvSchema = z.object({
  /** `production` holds the start to production's rules: Redis, a long introspection secret, no demo data. */
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  /** The address the server listens on (`0.0.0.0`: every interface). */
  HOST: hostEnv,
  /** The resource server's own port, where the gateway forwards its routes; 0 picks a free one. */
  RESOURCE_PORT: portEnv(3002),
  /**
   * Peers whose X-Forwarded-For is believed (Fastify's trustProxy), as in the auth server:
   * comma-separated IPs or CIDR ranges, or `loopback`; the gateway's addresses.
   */
  TRUSTED_PROXIES: trustedProxiesSchema,
  /** The public origin clients see (the gateway); without its trailing slash, the canonical resource URI. */
  PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:3000'),
  /** PostgreSQL holding the resource server's tables (the `resource` schema's migrations). */
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }),
  /** Connections of the PostgreSQL pool (1 in the embedded mode: PGlite serves one session). */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  /**
   * Redis shared by every replica of both services: revocation events, the introspection cache, rate limits.
   * Unset: in-process.
   */
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  /** Internal base URL of the authorization server, for introspection. */
  AUTH_SERVER_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:3001'),
  ...introspectionClientEnv,
  /** The longest an active introspection answer is cached (never past the token's expiry). */
  INTROSPECTION_CACHE_TTL_SECONDS: seconds(300),
  /** How long an inactive answer is cached, so that a flood of bad tokens costs little. */
  INTROSPECTION_INACTIVE_TTL_SECONDS: seconds(10),
  /**
   * How old a DPoP proof (RFC 9449) may be at the API and /mcp: its iat no earlier than this many seconds ago (and
   * no later than 5 s ahead). Its jti is remembered as long (in Redis with REDIS_URL, shared by every replica).
   */
  DPOP_PROOF_MAX_AGE_SECONDS: z.coerce.number().int().min(5).max(300).default(60),
  /**
   * Server-provided DPoP nonces at the API and /mcp (RFC 9449 §9): a proof must carry a nonce this origin issued in
   * the last 5 to 10 minutes, else 401 `use_dpop_nonce` with a fresh one in `DPoP-Nonce`. Needs DPOP_NONCE_SECRET.
   */
  DPOP_NONCES: booleanFlag.default(false),
  /**
   * The secret the DPoP nonces are derived from, the authorization server's DPOP_NONCE_SECRET (the two servers are
   * one origin to a client, which keeps one nonce per origin). Required when DPOP_NONCES is on.
   */
  DPOP_NONCE_SECRET: z.string().min(32).optional(),
  /** The school anonymous callers see unless they pass `?school=<id>`. */
  DEFAULT_SCHOOL_ID: z.string().min(1).max(100).default('demo-school'),
  /**
   * Browser origins, besides the public origin, whose pages may call /mcp (comma-separated
   * origins: a web-based MCP client). Every other Origin is refused with 403 (DNS-rebinding
   * protection); clients that send no Origin (every non-browser one) are not concerned.
   */
  MCP_ALLOWED_ORIGINS: mcpAllowedOriginsEnv,
  /** The largest file the storage API takes (the gateway reads the same variable). */
  UPLOAD_MAX_BYTES: uploadMaxBytesEnv,
  /** Set by the launcher when it runs the embedded PostgreSQL. */
  EMBEDDED_MODE: booleanFlag.default(false),
  /** Seed the demo schools (refused in production). Unset: seeded in the embedded mode, outside production. */
  SEED_DEMO_DATA: booleanFlag.optional(),
  /** false: no request rate limits on the API and /mcp (rate-limits/). */
  RATE_LIMITS_ENABLED: booleanFlag.default(true),
  /**
   * Writes per user, counted once the bearer token is validated (the principal is known, so
   * nobody else can spend it): API requests other than GET/HEAD/OPTIONS, and /mcp `tools/call`
   * of a tool that writes (readOnlyHint false). Answers a runaway agent writing in a loop; an
   * agent importing a course's content writes far fewer than 10 a second.
   */
  RATE_LIMIT_WRITES_PER_USER: count(600),
  /** The window of RATE_LIMIT_WRITES_PER_USER. */
  RATE_LIMIT_WRITES_WINDOW_SECONDS: seconds(60),
  /**
   * Requests without a token per client address (the public catalogue, the API's anonymous
   * reads, /mcp without a token): loose, since a hosted agent's egress address carries many
   * users. 6,000 a minute is 100 a second from one address; reads with a token are not counted.
   */
  RATE_LIMIT_ANONYMOUS_PER_IP: count(6000),
  /** The window of RATE_LIMIT_ANONYMOUS_PER_IP. */
  RATE_LIMIT_ANONYMOUS_WINDOW_SECONDS: seconds(60),
  /** LOG_LEVEL, HEALTH_CHECK_TIMEOUT_MS, SHUTDOWN_TIMEOUT_MS. */
  ...operationsEnv,
  /** AUDIT_EVENTS_RETENTION_DAYS, WEBHOOK_*, EVENTS_CLEANUP_INTERVAL_SECONDS (config/events-config.ts). */
  ...EventsEnvSchema.shape,
});

export interface ResourceConfig {
  env: 'development' | 'test' | 'production';
  host: string;
  port: number;
  /** Peers whose X-Forwarded-For is believed (TRUSTED_PROXIES): request.ip is the client behind them. */
  trustedProxies: string[];
  /** The platform API's canonical resource URI (RFC 8707): the public origin, no trailing slash. */
  resource: string;
  /** RFC 9728 protected resource metadata URL. */
  resourceMetadataUrl: string;
  database: { url: string; poolSize: number };
  redisUrl?: string;
  /** Internal base URL of the authorization server (introspection; readiness asks its /healthz). */
  authServerUrl: string;
  introspection: {
    endpoint: string;
    clientId: string;
    clientSecret: string;
    cacheTtlSeconds: number;
    inactiveTtlSeconds: number;
  };
  /** DPoP at the API and /mcp (RFC 9449): DPOP_PROOF_MAX_AGE_SECONDS; the nonce secret when DPOP_NONCES is on. */
  dpop: { proofMaxAgeSeconds: number; nonceSecret?: string };
  defaultSchoolId: string;
  /** MCP_ALLOWED_ORIGINS: the browser origins besides the public one that may call /mcp. */
  mcpAllowedOrigins: string[];
  /** The plans behind /pricing.md (PRICING_FILE, or data/pricing.yaml shipped with the app). */
  pricingFile: string;
  /** Uploads are kept in the database (storage/): only their size limit is configured. */
  storage: { maxUploadBytes: number };
  embedded: boolean;
  seedDemoData: boolean;
  operations: OperationsConfig;
  /** Request rate limits (rate-limits/resource-limits.ts): RATE_LIMITS_ENABLED and RATE_LIMIT_*. */
  rateLimits: { enabled: boolean; writesPerUser: Limit; anonymousPerIp: Limit };
  /** The audit log and the webhooks: AUDIT_EVENTS_*, WEBHOOK_*, EVENTS_* (config/events-config.ts). */
  events: EventsConfig;
}

export class ConfigError extends Error {}

export function loadResourceConfig(env: NodeJS.ProcessEnv = process.env): ResourceConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = envProblems(parsed.error).map((line) => `  ${line}`);
    throw new ConfigError(`Invalid configuration of the resource-server:\n${problems.join('\n')}`);
  }
  const e = parsed.data;
  const resource = withoutTrailingSlashes(e.PUBLIC_BASE_URL);
  const seedDemoData = e.SEED_DEMO_DATA ?? (e.NODE_ENV !== 'production' && e.EMBEDDED_MODE);
  if (e.NODE_ENV === 'production') {
    if (seedDemoData) throw new ConfigError('SEED_DEMO_DATA: the demo schools are never created in production');
    if (e.EMBEDDED_MODE) throw new ConfigError('EMBEDDED_MODE: production needs a real PostgreSQL');
    // Without it each replica validates on its own: deaf to revocations heard by the others'
    // caches, its rate limits counted per replica (the embedded mode, refused here, keeps its in-process bus).
    if (!e.REDIS_URL) throw new ConfigError('REDIS_URL: production needs Redis, shared by every replica of both services (revocation events, introspection cache, rate limits)');
    const secretProblem = productionIntrospectionSecretProblem(e.INTROSPECTION_CLIENT_SECRET);
    if (secretProblem) throw new ConfigError(secretProblem);
  }
  if (e.DPOP_NONCES && !e.DPOP_NONCE_SECRET) {
    throw new ConfigError('DPOP_NONCE_SECRET: DPOP_NONCES needs the secret the authorization server derives its nonces from (at least 32 characters)');
  }
  let events: EventsConfig;
  try {
    events = eventsConfig(e, e.NODE_ENV === 'production');
  } catch (error) {
    throw new ConfigError(`Invalid configuration of the resource-server:\n  ${(error as Error).message}`);
  }
  const authServerUrl = withoutTrailingSlashes(e.AUTH_SERVER_URL);
  return {
    env: e.NODE_ENV,
    host: e.HOST,
    port: e.RESOURCE_PORT,
    trustedProxies: e.TRUSTED_PROXIES,
    resource,
    resourceMetadataUrl: `${resource}${RESOURCE_PATHS.protectedResourceMetadata}`,
    database: { url: e.DATABASE_URL, poolSize: e.EMBEDDED_MODE ? 1 : e.DATABASE_POOL_SIZE },
    redisUrl: e.REDIS_URL,
    authServerUrl,
    introspection: {
      endpoint: `${authServerUrl}${OAUTH_PATHS.introspection}`,
      clientId: e.INTROSPECTION_CLIENT_ID,
      clientSecret: e.INTROSPECTION_CLIENT_SECRET,
      cacheTtlSeconds: e.INTROSPECTION_CACHE_TTL_SECONDS,
      inactiveTtlSeconds: e.INTROSPECTION_INACTIVE_TTL_SECONDS,
    },
    dpop: { proofMaxAgeSeconds: e.DPOP_PROOF_MAX_AGE_SECONDS, ...(e.DPOP_NONCES ? { nonceSecret: e.DPOP_NONCE_SECRET } : {}) },
    defaultSchoolId: e.DEFAULT_SCHOOL_ID,
    mcpAllowedOrigins: e.MCP_ALLOWED_ORIGINS,
    pricingFile: resolvePricingFile(env),
    storage: { maxUploadBytes: e.UPLOAD_MAX_BYTES },
    embedded: e.EMBEDDED_MODE,
    seedDemoData,
    operations: operationsConfig(e),
    rateLimits: {
      enabled: e.RATE_LIMITS_ENABLED,
      writesPerUser: { max: e.RATE_LIMIT_WRITES_PER_USER, windowSeconds: e.RATE_LIMIT_WRITES_WINDOW_SECONDS },
      anonymousPerIp: { max: e.RATE_LIMIT_ANONYMOUS_PER_IP, windowSeconds: e.RATE_LIMIT_ANONYMOUS_WINDOW_SECONDS },
    },
    events,
  };
}

/** Injection token for the validated configuration. */
export const RESOURCE_CONFIG = Symbol('RESOURCE_CONFIG');
