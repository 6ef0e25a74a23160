import { EVENT_ACTOR_TYPES, newEventId, type SecurityEvent, type SecurityEventType } from '@platform/contracts';
import { currentRequestId } from '@platform/logging';

export type ActorType = (typeof EVENT_ACTOR_TYPES)[number];

/**
 * What a call site knows of a security event; the rest (id, time, request id) is filled in by
 * securityEventOf. Never a password, a secret, a code or a token in any field: the ingest refuses
 * such `data` keys (libs/contracts forbiddenDataKeys), and the other fields are ids.
 */
export interface SecurityEventInput {
  type: SecurityEventType;
  /** The school whose audit log shows it; null: platform-wide (staff only). */
  schoolId: string | null;
  actor: { type: ActorType; id: string | null };
  /** What it was done to, when that is something else than the actor (a grant, a user). */
  subject?: { type: string; id: string } | null;
  clientId?: string | null;
  /** The client address of the request (request.ip). */
  address?: string | null;
  outcome?: 'success' | 'failure';
  data?: Record<string, unknown>;
  /** Where the request's logging context is not there yet (a hook before it): the request's id itself. */
  requestId?: string;
}

/** The longest field values the ingest takes (libs/contracts platformEventSchema). */
const MAX_ADDRESS = 64;
const MAX_REQUEST_ID = 200;

/** A request's address and id as an event carries them: cut to the ingest's limits, null when absent. */
export function eventRequestFields(address: string | null | undefined, requestId: string | null | undefined): { address: string | null; request_id: string | null } {
  return { address: address ? address.slice(0, MAX_ADDRESS) : null, request_id: requestId?.slice(0, MAX_REQUEST_ID) ?? null };
}

/**
 * The event on the wire. The request id is the one of the request being handled (its logs'
 * reqId, the gateway's X-Request-Id), or `requestId` when given; none outside a request (the CLI).
 */
export function securityEventOf(input: SecurityEventInput, now = new Date(), requestId = currentRequestId()): SecurityEvent {
  return {
    id: newEventId(),
    type: input.type,
    occurred_at: now.toISOString(),
    school_id: input.schoolId,
    actor: input.actor,
    subject: input.subject ?? null,
    client_id: input.clientId ?? null,
    ...eventRequestFields(input.address, input.requestId ?? requestId),
    outcome: input.outcome ?? 'success',
    data: input.data ?? {},
  };
}

/** A grant as events name it: its id, which is no credential (tokens and codes are never named). */
export function grantSubject(grantId: string): { type: 'grant'; id: string } {
  return { type: 'grant', id: grantId };
}
