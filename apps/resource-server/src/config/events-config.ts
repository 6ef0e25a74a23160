import { readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * The audit log's and the webhooks' variables (issue 31): fields of the resource server's
 * EnvSchema (resource-config.ts spreads their shape in), turned into EventsConfig by eventsConfig.
 */
const booleanFlag = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');
const days = (fallback: number) => z.coerce.number().int().min(1).max(36_500).default(fallback);

export const EventsEnvSchema = z.object({
  /** Security events older than this are deleted by the clean-up job. */
  AUDIT_EVENTS_RETENTION_DAYS: days(365),
  /** Webhook deliveries (delivered, failed or still pending) older than this are deleted by the clean-up job. */
  WEBHOOK_DELIVERIES_RETENTION_DAYS: days(30),
  /** How often each replica runs the clean-up job (one replica at a time cleans up). */
  EVENTS_CLEANUP_INTERVAL_SECONDS: z.coerce.number().int().min(10).max(86_400).default(3_600),
  /**
   * 32 random bytes, base64: the key that encrypts the webhook signing secrets at rest (AES-256-GCM).
   * Unset: the webhook routes answer 503 and nothing is delivered; the audit log works without it.
   */
  WEBHOOK_SECRETS_KEY: z
    .string()
    .refine((value) => Buffer.from(value, 'base64').length === 32, '32 random bytes, base64 (openssl rand -base64 32)')
    .optional(),
  /** false: this replica delivers no webhook (another one does); events are still written. */
  WEBHOOK_DELIVERY_ENABLED: booleanFlag.default(true),
  /** How often a replica looks for events to fan out and deliveries that are due. */
  WEBHOOK_POLL_INTERVAL_MS: z.coerce.number().int().min(50).max(60_000).default(1_000),
  /** Deadline of one delivery attempt (connection, TLS, the answer's headers). */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(15_000),
  /** Attempts per delivery; the last one failed, it fails for good and its subscription is paused (12: over ~3 days). */
  WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(30).default(12),
  /** The delay before the second attempt; each next one is three times longer, at most a day, ±20 % jitter. */
  WEBHOOK_RETRY_BASE_SECONDS: z.coerce.number().int().min(1).max(3_600).default(10),
  /** After a rotation, the previous secret signs beside the new one this long. */
  WEBHOOK_SECRET_ROTATION_OVERLAP_SECONDS: z.coerce.number().int().min(0).max(30 * 86_400).default(86_400),
  /** TESTS ONLY: webhook endpoints on loopback and private addresses. Refused when NODE_ENV=production. */
  WEBHOOK_ALLOW_SPECIAL_USE_HOSTS: booleanFlag.default(false),
  /** TESTS ONLY: a PEM file of certificates trusted besides the system roots. Refused when NODE_ENV=production. */
  WEBHOOK_EXTRA_CA_FILE: z.string().min(1).optional(),
});

type EventsEnv = z.output<typeof EventsEnvSchema>;

export interface EventsConfig {
  auditRetentionDays: number;
  deliveriesRetentionDays: number;
  cleanupIntervalSeconds: number;
  webhooks: {
    /** Undefined: webhooks are off (no key to keep their secrets with). */
    secretsKey?: Buffer;
    deliveryEnabled: boolean;
    pollIntervalMs: number;
    timeoutMs: number;
    maxAttempts: number;
    retryBaseSeconds: number;
    rotationOverlapSeconds: number;
    /** At most this much of a receiver's answer is read. */
    maxResponseBytes: number;
    allowSpecialUseAddresses: boolean;
    extraCaCertificates?: string;
  };
}

/** A receiver's answer body is read up to this and thrown away. */
const MAX_RESPONSE_BYTES = 4 * 1024;

/**
 * The variables above as parsed with the rest; throws an Error naming the variable
 * (resource-config.ts turns it into its ConfigError). The two test-only knobs make the server
 * deliver where a production server must never connect: refused in production.
 */
export function eventsConfig(e: EventsEnv, production: boolean): EventsConfig {
  if (production && e.WEBHOOK_ALLOW_SPECIAL_USE_HOSTS) throw new Error('WEBHOOK_ALLOW_SPECIAL_USE_HOSTS: for tests only, refused when NODE_ENV=production');
  if (production && e.WEBHOOK_EXTRA_CA_FILE) throw new Error('WEBHOOK_EXTRA_CA_FILE: for tests only, refused when NODE_ENV=production');
  let extraCaCertificates: string | undefined;
  if (e.WEBHOOK_EXTRA_CA_FILE) {
    try {
      extraCaCertificates = readFileSync(e.WEBHOOK_EXTRA_CA_FILE, 'utf8');
    } catch (error) {
      throw new Error(`WEBHOOK_EXTRA_CA_FILE: ${(error as Error).message}`);
    }
  }
  return {
    auditRetentionDays: e.AUDIT_EVENTS_RETENTION_DAYS,
    deliveriesRetentionDays: e.WEBHOOK_DELIVERIES_RETENTION_DAYS,
    cleanupIntervalSeconds: e.EVENTS_CLEANUP_INTERVAL_SECONDS,
    webhooks: {
      secretsKey: e.WEBHOOK_SECRETS_KEY === undefined ? undefined : Buffer.from(e.WEBHOOK_SECRETS_KEY, 'base64'),
      deliveryEnabled: e.WEBHOOK_DELIVERY_ENABLED,
      pollIntervalMs: e.WEBHOOK_POLL_INTERVAL_MS,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      maxAttempts: e.WEBHOOK_MAX_ATTEMPTS,
      retryBaseSeconds: e.WEBHOOK_RETRY_BASE_SECONDS,
      rotationOverlapSeconds: e.WEBHOOK_SECRET_ROTATION_OVERLAP_SECONDS,
      maxResponseBytes: MAX_RESPONSE_BYTES,
      allowSpecialUseAddresses: e.WEBHOOK_ALLOW_SPECIAL_USE_HOSTS,
      extraCaCertificates,
    },
  };
}
