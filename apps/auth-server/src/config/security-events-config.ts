import { SECURITY_EVENTS_INGEST_PATH } from '@platform/contracts';
import { envProblems } from '@platform/operations-config';
import { z } from 'zod';
import { ConfigError } from './config-error';

const booleanFlag = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');

/**
 * The relay of the security events (security-events-relay.ts). Where it sends them is the
 * resource server's internal URL (RESOURCE_SERVER_URL) plus the ingest's path, authenticated with
 * the introspection client's credentials: nothing more to configure for the common case.
 */
export const SecurityEventsEnvSchema = z.object({
  /** false: the outbox is not sent from this process (tests that drive the relay by hand). Events are recorded either way. */
  SECURITY_EVENTS_RELAY_ENABLED: booleanFlag.default(true),
  /** How often the relay looks for unsent security events when the last look found none. */
  SECURITY_EVENTS_RELAY_INTERVAL_MS: z.coerce.number().int().min(50).max(60_000).default(1_000),
  /** Deadline of one ingest request; its events are retried after it. */
  SECURITY_EVENTS_RELAY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
});

export interface SecurityEventsConfig {
  /** RESOURCE_SERVER_URL + SECURITY_EVENTS_INGEST_PATH. */
  ingestUrl: string;
  relayEnabled: boolean;
  intervalMs: number;
  timeoutMs: number;
}

/** `resourceServerUrl`: RESOURCE_SERVER_URL, without a trailing slash. */
export function loadSecurityEventsConfig(env: NodeJS.ProcessEnv, resourceServerUrl: string): SecurityEventsConfig {
  const parsed = SecurityEventsEnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = envProblems(parsed.error).map((line) => `  ${line}`);
    throw new ConfigError(`Invalid security events settings of the auth-server:\n${problems.join('\n')}`);
  }
  const e = parsed.data;
  return {
    ingestUrl: `${resourceServerUrl}${SECURITY_EVENTS_INGEST_PATH}`,
    relayEnabled: e.SECURITY_EVENTS_RELAY_ENABLED,
    intervalMs: e.SECURITY_EVENTS_RELAY_INTERVAL_MS,
    timeoutMs: e.SECURITY_EVENTS_RELAY_TIMEOUT_MS,
  };
}
