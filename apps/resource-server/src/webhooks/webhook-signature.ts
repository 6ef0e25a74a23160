import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks 1.0 (standardwebhooks.com), symmetric: a secret is 24 to 64 random bytes
 * shown as `whsec_<base64>`; a delivery carries `webhook-id` (the event id, the same on every
 * attempt), `webhook-timestamp` (this attempt, unix seconds) and `webhook-signature`, a space
 * delimited list of `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`, one per secret in
 * force (two during a rotation's overlap). Receivers check one matches and the timestamp is
 * within their tolerance (5 minutes in our recipe).
 */
export const SECRET_PREFIX = 'whsec_';

/** A new signing secret: 32 random bytes (the standard asks for 24 to 64). */
export function newSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/** `v1,<signature>` of one secret. */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The three headers of a delivery signed with every secret in `secrets`. */
export function signedHeaders(secrets: readonly string[], id: string, timestamp: number, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => signature(secret, id, timestamp, body)).join(' '),
  };
}
