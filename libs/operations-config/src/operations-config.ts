import { compile } from '@fastify/proxy-addr';
import { z } from 'zod';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * The variables of running a service in production, spread into each service's zod schema so
 * that both validate them alike (a bad value stops the service with a message naming it).
 */
export const operationsEnv = {
  /** pino level of the JSON logs on stdout. */
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  /** Deadline of each readiness check (database, Redis, authorization server). */
  HEALTH_CHECK_TIMEOUT_MS: z.coerce.number().int().min(50).max(10_000).default(1_000),
  /**
   * How long SIGTERM may take before the process gives up and exits 1; below the 10 s after
   * which the launcher and `docker stop` send SIGKILL, so a stuck shutdown says why.
   */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(300_000).default(8_000),
  /**
   * After SIGTERM, how long the service goes on serving before it stops listening: readiness
   * fails at once and every answer says `Connection: close`, so that the orchestrator and the
   * gateway take it out of rotation while it still answers. 0 (the default) closes at once: a
   * Kubernetes preStop sleep does the same before SIGTERM. Set it where nothing waits before the
   * signal (swarm: a little above the gateway's GATEWAY_DNS_REFRESH_MS). SHUTDOWN_TIMEOUT_MS
   * counts from its end.
   */
  SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(120_000).default(0),
};

/** HOST: the address a service listens on. */
export const hostEnv = z.string().min(1).default('127.0.0.1');

/** A service's port variable (PORT, AUTH_PORT, RESOURCE_PORT); 0 lets the system pick one. */
export const portEnv = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

/**
 * Checks a list of proxies with the library Fastify resolves X-Forwarded-For with
 * (`trustProxy`): IP addresses, CIDR ranges, or `loopback` / `linklocal` / `uniquelocal`.
 * Throws, naming the entry, on anything else.
 */
export function validateTrustedProxies(entries: readonly string[]): void {
  for (const entry of entries) {
    try {
      compile(entry);
    } catch {
      throw new Error(`not an IP address, CIDR range or proxy-addr keyword: ${entry}`);
    }
  }
}

/**
 * Comma-separated proxies whose X-Forwarded-For is believed (TRUSTED_PROXIES of the services,
 * the list form of the gateway's GATEWAY_TRUST_PROXY), checked as above; becomes Fastify's
 * `trustProxy`. Here rather than beside the rate limits so that the gateway, which has no
 * Redis, reads it with the same rule.
 */
export const trustedProxyListSchema = z
  .string()
  .transform((value) => value.split(',').map((entry) => entry.trim()).filter((entry) => entry !== ''))
  .superRefine((entries, context) => {
    try {
      validateTrustedProxies(entries);
    } catch (error) {
      context.addIssue({ code: 'custom', message: (error as Error).message });
    }
  });

/**
 * A failed parse of the environment as one `NAME: message` line a problem, in the order the
 * schema found them: every message names its variable.
 */
export function envProblems(error: z.ZodError): string[] {
  return error.issues.map((issue) => `${issue.path.join('.') || '(env)'}: ${issue.message}`);
}

export interface OperationsConfig {
  logLevel: LogLevel;
  healthCheckTimeoutMs: number;
  shutdownTimeoutMs: number;
  shutdownDrainMs: number;
}

export const DEFAULT_OPERATIONS: OperationsConfig = Object.freeze({
  logLevel: 'info',
  healthCheckTimeoutMs: 1_000,
  shutdownTimeoutMs: 8_000,
  shutdownDrainMs: 0,
});

export function operationsConfig(env: {
  LOG_LEVEL: LogLevel;
  HEALTH_CHECK_TIMEOUT_MS: number;
  SHUTDOWN_TIMEOUT_MS: number;
  SHUTDOWN_DRAIN_MS: number;
}): OperationsConfig {
  return {
    logLevel: env.LOG_LEVEL,
    healthCheckTimeoutMs: env.HEALTH_CHECK_TIMEOUT_MS,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    shutdownDrainMs: env.SHUTDOWN_DRAIN_MS,
  };
}

type NestLogLevel = 'verbose' | 'debug' | 'log' | 'warn' | 'error' | 'fatal';

const NEST_TO_PINO: [NestLogLevel, LogLevel][] = [
  ['verbose', 'trace'],
  ['debug', 'debug'],
  ['log', 'info'],
  ['warn', 'warn'],
  ['error', 'error'],
  ['fatal', 'fatal'],
];

/**
 * Nest's `logger` option (a list of levels, or false) as one pino level: the most verbose
 * level listed. Lets callers, tests above all, keep writing `logger: ['error']`.
 */
export function pinoLevelOf(levels: readonly NestLogLevel[] | false): LogLevel {
  if (levels === false) return 'silent';
  return NEST_TO_PINO.find(([nest]) => levels.includes(nest))?.[1] ?? 'silent';
}
