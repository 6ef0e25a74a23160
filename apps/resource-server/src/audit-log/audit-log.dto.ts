import { EVENT_ACTOR_TYPES, EVENT_OUTCOMES, SECURITY_EVENT_TYPES } from '@platform/contracts';
import { z } from 'zod';
import { dateTime, isoOut, ref } from '../common/fields';
import { pageQuery } from '../common/pagination';
import { zodDto } from '../common/validation';

export const SecurityEventView = z.object({
  id: z.string().describe('Time-ordered (UUIDv7); the webhook-id when delivered'),
  type: z.string().describe('A security event type of the catalogue (auth.…)'),
  occurred_at: isoOut,
  school_id: z.string().nullable(),
  actor: z.object({ type: z.enum(EVENT_ACTOR_TYPES), id: z.string().nullable() }),
  subject: z.object({ type: z.string(), id: z.string() }).nullable(),
  client_id: z.string().nullable(),
  address: z.string().nullable(),
  request_id: z.string().nullable(),
  outcome: z.enum(EVENT_OUTCOMES),
  // An object of the type's details (a loose object rather than a record: the MCP tools' portable schemas).
  data: z.looseObject({}).describe('Details of the type; never a secret, code or token'),
});
export class SecurityEventDto extends zodDto(SecurityEventView, 'output') {}

export const ListSecurityEventsQuery = pageQuery.extend({
  type: z.enum(SECURITY_EVENT_TYPES as [string, ...string[]]).optional().describe('Only events of this type'),
  since: dateTime.optional().describe('Only events at or after this time (RFC 3339)'),
  until: dateTime.optional().describe('Only events before this time (RFC 3339)'),
  actor_id: ref.optional().describe('Only events done by this user, client or staff member'),
  client_id: z.string().min(1).max(512).optional().describe('Only events involving this OAuth client'),
  subject_id: ref.optional().describe('Only events done to this subject (a grant, a client…)'),
});
export class ListSecurityEventsQueryDto extends zodDto(ListSecurityEventsQuery, 'input') {}
