import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';

/**
 * The platform's event catalogue: every event the audit log records or a webhook delivers,
 * each with what it means. One file, read by the audit-log API (its `type` filter), the webhook
 * subscriptions (the types a subscription may name) and the documentation.
 *
 * `security` events are recorded by the authorization server and sent to the resource server
 * (POST SECURITY_EVENTS_INGEST_PATH); `business` events are written by the resource server in the
 * transaction of the change they report. Both kinds can be delivered by webhook. Names are
 * Standard Webhooks event types: full-stop delimited, `[a-z0-9_]` identifiers.
 */
export const EVENT_TYPES = {
  'auth.sign_in.succeeded': { kind: 'security', description: 'A user signed in on the login page (data: method).' },
  'auth.sign_in.failed': { kind: 'security', description: 'A sign-in was refused: unknown account or wrong password (data: reason; never the password).' },
  'auth.sign_in.throttled': { kind: 'security', description: 'Sign-ins from an address or for an account were slowed down or refused after repeated failures (data: scope, retry_after_seconds).' },
  'auth.consent.granted': { kind: 'security', description: 'A user approved a client’s request (data: scope, resource).' },
  'auth.consent.denied': { kind: 'security', description: 'A user denied a client’s request (data: scope, resource).' },
  'auth.token.issued': { kind: 'security', description: 'The token endpoint issued tokens (data: grant_type, scope, resource; a hash prefix of the grant at most).' },
  'auth.token.revoked': { kind: 'security', description: 'A client revoked one of its tokens at the revocation endpoint (RFC 7009) (data: token_type, grant_ended).' },
  'auth.grant.revoked': { kind: 'security', description: 'A grant and every token it issued were revoked: by the user on the connected-apps page, or by staff (actor says who).' },
  'auth.refresh_token.reuse_detected': { kind: 'security', description: 'A rotated refresh token was presented again; the grant it belongs to was ended (data: grant_id_prefix).' },
  'auth.client.registered': { kind: 'security', description: 'A client registered itself dynamically (RFC 7591) (data: client_name, redirect_uris).' },
  'auth.client.metadata_document_first_seen': { kind: 'security', description: 'A client identified by its metadata document URL was seen for the first time (data: client_id URL host).' },
  'auth.integration.changed': { kind: 'security', description: 'Staff changed a registered integration with the clients CLI (data: action: created, secret_rotated, keys_set, disabled, enabled, deleted).' },
  'auth.rate_limit.exceeded': { kind: 'security', description: 'A caller went over a rate limit of the authorization server (data: limit, retry_after_seconds).' },
  'order.created': { kind: 'business', description: 'An order was recorded (data: the order, as GET /api/v1/orders/{id} shows it).' },
  'order.paid': { kind: 'business', description: 'An order was paid (data: the order).' },
  'order.refunded': { kind: 'business', description: 'A paid order was refunded (data: the order).' },
  'enrollment.created': { kind: 'business', description: 'A student was enrolled in a course (data: the enrollment).' },
  'student.created': { kind: 'business', description: 'A student was added to the school (data: the student).' },
  'course.published': { kind: 'business', description: 'A course was published: created published, or changed from draft to published (data: the course).' },
  'post.published': { kind: 'business', description: 'A blog post was published: created published, or changed from draft to published (data: the post).' },
} as const satisfies Record<string, { kind: 'security' | 'business'; description: string }>;

export type EventType = keyof typeof EVENT_TYPES;
export type SecurityEventType = { [T in EventType]: (typeof EVENT_TYPES)[T]['kind'] extends 'security' ? T : never }[EventType];
export type BusinessEventType = Exclude<EventType, SecurityEventType>;

export const ALL_EVENT_TYPES = Object.keys(EVENT_TYPES) as readonly EventType[];
export const SECURITY_EVENT_TYPES = ALL_EVENT_TYPES.filter((type) => EVENT_TYPES[type].kind === 'security') as readonly SecurityEventType[];
export const BUSINESS_EVENT_TYPES = ALL_EVENT_TYPES.filter((type) => EVENT_TYPES[type].kind === 'business') as readonly BusinessEventType[];

export function isEventType(value: string): value is EventType {
  return Object.prototype.hasOwnProperty.call(EVENT_TYPES, value);
}

export const EVENT_ACTOR_TYPES = ['user', 'client', 'staff', 'system'] as const;
export const EVENT_OUTCOMES = ['success', 'failure'] as const;

/** Where the authorization server sends its security events (resource server; never through the public origin). */
export const SECURITY_EVENTS_INGEST_PATH = '/internal/security-events';
/** At most this many events per ingest request. */
export const MAX_EVENTS_PER_INGEST = 500;
/** An event's `data`, serialized, is at most this long. */
export const MAX_EVENT_DATA_BYTES = 4 * 1024;

/** A new event id: a UUIDv7, ordered by time, the receivers' de-duplication key (`webhook-id`). */
export function newEventId(): string {
  return uuidv7();
}

/**
 * Keys `data` must never carry: a secret, a password, a code or a token (a hash prefix of one is
 * fine: `grant_id_prefix`, `token_hash_prefix`). Refused at the ingest, so a mistake on the
 * recording side is a 400 there, not a secret kept for a year.
 */
const FORBIDDEN_DATA_KEY = /(^|_)(password|secret|code|token|assertion|cookie|verifier)$/i;

export function forbiddenDataKeys(value: unknown, path = 'data'): string[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => forbiddenDataKeys(item, `${path}[${index}]`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) => [
    ...(FORBIDDEN_DATA_KEY.test(key) ? [`${path}.${key}`] : []),
    ...forbiddenDataKeys(item, `${path}.${key}`),
  ]);
}

const shortText = (max: number) => z.string().min(1).max(max);

/**
 * An event on the wire: the audit log's entries, the webhook payloads and the ingest's body
 * items all have this shape (snake_case, as the API).
 */
export const platformEventSchema = z
  .object({
    id: z.uuid().describe('Time-ordered (UUIDv7); the de-duplication key'),
    type: z.string().refine(isEventType, 'not an event type of the catalogue').describe('An event type of the catalogue'),
    occurred_at: z.iso.datetime({ offset: true }).describe('When it happened (ISO 8601)'),
    school_id: shortText(100).nullable().describe('The school; null for a platform-wide event'),
    actor: z
      .object({ type: z.enum(EVENT_ACTOR_TYPES), id: shortText(200).nullable() })
      .strict()
      .describe('Who did it: a user, a client, staff, or the system'),
    subject: z
      .object({ type: shortText(50), id: shortText(200) })
      .strict()
      .nullable()
      .describe('What it was done to, if anything else than the actor'),
    client_id: shortText(512).nullable().describe('The OAuth client involved'),
    address: shortText(64).nullable().describe('The client address of the request'),
    request_id: shortText(200).nullable().describe('The request id (X-Request-Id) of the request'),
    outcome: z.enum(EVENT_OUTCOMES),
    data: z.record(z.string(), z.unknown()).describe('Details of the type; never a secret, code or token'),
  })
  .strict()
  .superRefine((event, context) => {
    if (Buffer.byteLength(JSON.stringify(event.data)) > MAX_EVENT_DATA_BYTES) {
      context.addIssue({ code: 'custom', path: ['data'], message: `larger than ${MAX_EVENT_DATA_BYTES} bytes` });
    }
    for (const key of forbiddenDataKeys(event.data)) {
      context.addIssue({ code: 'custom', path: ['data'], message: `${key}: secrets, codes and tokens are never recorded` });
    }
  });

export type PlatformEvent = Omit<z.infer<typeof platformEventSchema>, 'type'> & { type: EventType };
export type SecurityEvent = PlatformEvent & { type: SecurityEventType };

/** The ingest's body: a JSON array of security events. */
export const securityEventBatchSchema = z
  .array(platformEventSchema)
  .min(1)
  .max(MAX_EVENTS_PER_INGEST)
  .superRefine((events, context) => {
    events.forEach((event, index) => {
      if (isEventType(event.type) && EVENT_TYPES[event.type].kind !== 'security') {
        context.addIssue({ code: 'custom', path: [index, 'type'], message: 'only security events are ingested' });
      }
    });
  });

/**
 * The ingest's Authorization header: HTTP Basic (RFC 7617) with the introspection client's
 * credentials, each form-urlencoded first as RFC 6749 §2.3.1 has clients do.
 */
export function ingestAuthorization(clientId: string, clientSecret: string): string {
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`, 'utf8').toString('base64')}`;
}
