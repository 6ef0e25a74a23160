import { envProblems, hostEnv, type LogLevel, operationsEnv, portEnv, trustedProxyListSchema } from '@platform/operations-config';
import { SERVICE_BODY_LIMITS, type ServiceName, uploadMaxBytesEnv } from '@platform/route-table';
import { z } from 'zod';

export interface GatewayConfig {
  host: string;
  port: number;
  upstreams: Record<ServiceName, string>;
  /**
   * Who may tell the gateway the client's address in X-Forwarded-For (GATEWAY_TRUST_PROXY):
   * false (the gateway is the public edge: the peer is the client), true (exactly one proxy you
   * run in front: the last address it appends), or the proxies' addresses / CIDR ranges.
   */
  trustProxy: boolean | string[];
  /** The largest request body each service takes; the gateway answers 413 to bigger ones. */
  bodyLimits: Record<ServiceName, number>;
  /** The largest upload (UPLOAD_PATH only). */
  uploadMaxBytes: number;
  logLevel: LogLevel;
  /** How long closing may take before the gateway exits 1 anyway. */
  shutdownTimeoutMs: number;
  /** After SIGTERM, how long the gateway goes on serving, not ready, before it closes (SHUTDOWN_DRAIN_MS). */
  shutdownDrainMs: number;
  /** How often each upstream's host name is resolved again to its replicas' addresses. */
  dnsRefreshMs: number;
  /**
   * PUBLIC_BASE_URL's origin (`https://academy.example`), or undefined when not set: which
   * absolute-form targets name this origin, and (https) whether to send Strict-Transport-Security.
   */
  publicOrigin: string | undefined;
}

/** The gateway takes a variable set to nothing (`VAR=` in a compose file) for one not set. */
const unsetWhenEmpty = <T extends z.ZodType>(schema: T) => z.preprocess((value) => (value === '' ? undefined : value), schema);

/**
 * An upstream: an http(s) origin, without path or query (the gateway appends the request's).
 * normalize: whatever the URL parser reads as one is taken (`http:host:3001` too), as always.
 */
const upstreamOrigin = (fallback: string) =>
  unsetWhenEmpty(
    z
      .url({ protocol: /^https?$/, normalize: true })
      .default(fallback)
      .transform((value, context) => {
        const url = new URL(value);
        if (url.pathname !== '/' || url.search) {
          context.addIssue({ code: 'custom', message: `expected an http(s) origin without path, got ${value}`, input: value });
          return z.NEVER;
        }
        return url.origin;
      }),
  );

/**
 * PUBLIC_BASE_URL, as the services read it (an http(s) URL); the gateway needs its origin only.
 * Optional: without it the gateway has no origin of its own (request-target.ts says what changes).
 */
const publicOriginSchema = unsetWhenEmpty(
  z
    .url({ protocol: /^https?$/ })
    .optional()
    .transform((value) => (value === undefined ? undefined : new URL(value).origin)),
);

/**
 * GATEWAY_TRUST_PROXY: false (default), true, or the proxies' addresses, read as TRUSTED_PROXIES
 * in the services (from @platform/operations-config: @platform/rate-limits would bring Redis into
 * the gateway).
 */
const trustProxySchema = unsetWhenEmpty(
  z
    .string()
    .default('false')
    .pipe(z.union([z.enum(['true', 'false']).transform((value) => value === 'true'), trustedProxyListSchema])),
);

/**
 * Every variable the gateway reads, validated once at start. A malformed variable stops the
 * gateway with a message that names it.
 */
export const EnvSchema = z.object({
  /** The address the gateway listens on (`0.0.0.0`: every interface). */
  HOST: unsetWhenEmpty(hostEnv),
  /** The public origin's port: the one port clients reach. */
  PORT: portEnv(3000),
  /** The authorization server's internal origin (no path), where its routes are forwarded. */
  AUTH_SERVER_URL: upstreamOrigin('http://127.0.0.1:3001'),
  /** The resource server's internal origin (no path), where its routes and every other path are forwarded. */
  RESOURCE_SERVER_URL: upstreamOrigin('http://127.0.0.1:3002'),
  /**
   * Who may tell the client's address in X-Forwarded-For: `false` (the peer is the client), `true` (one proxy in
   * front), or the proxies' IPs, CIDR ranges or proxy-addr keywords, comma-separated.
   */
  GATEWAY_TRUST_PROXY: trustProxySchema,
  /**
   * The public origin: absolute-form request targets naming it are this origin's; https adds
   * Strict-Transport-Security. Unset: no origin of its own.
   */
  PUBLIC_BASE_URL: publicOriginSchema,
  /** The resource server's upload limit (same variable, bounds and default as the resource server). */
  UPLOAD_MAX_BYTES: unsetWhenEmpty(uploadMaxBytesEnv),
  LOG_LEVEL: unsetWhenEmpty(operationsEnv.LOG_LEVEL),
  SHUTDOWN_TIMEOUT_MS: unsetWhenEmpty(operationsEnv.SHUTDOWN_TIMEOUT_MS),
  SHUTDOWN_DRAIN_MS: unsetWhenEmpty(operationsEnv.SHUTDOWN_DRAIN_MS),
  /**
   * How often AUTH_SERVER_URL's and RESOURCE_SERVER_URL's host names are resolved again: a name
   * with several addresses (swarm `tasks.<service>`, a Kubernetes headless Service) is one
   * replica each, balanced per request. A replica that stops leaves the rotation within this.
   */
  GATEWAY_DNS_REFRESH_MS: unsetWhenEmpty(z.coerce.number().int().min(100).max(60_000).default(1_000)),
});

/** Every variable the gateway reads. */
export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) throw new Error(envProblems(parsed.error).join('\n'));
  const e = parsed.data;
  return {
    host: e.HOST,
    port: e.PORT,
    upstreams: { 'auth-server': e.AUTH_SERVER_URL, 'resource-server': e.RESOURCE_SERVER_URL },
    trustProxy: e.GATEWAY_TRUST_PROXY,
    bodyLimits: { ...SERVICE_BODY_LIMITS },
    uploadMaxBytes: e.UPLOAD_MAX_BYTES,
    logLevel: e.LOG_LEVEL,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    shutdownDrainMs: e.SHUTDOWN_DRAIN_MS,
    dnsRefreshMs: e.GATEWAY_DNS_REFRESH_MS,
    publicOrigin: e.PUBLIC_BASE_URL,
  };
}
