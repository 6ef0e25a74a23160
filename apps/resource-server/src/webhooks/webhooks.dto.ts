import { ALL_EVENT_TYPES } from '@platform/contracts';
import { z } from 'zod';
import { isoOut, shortText } from '../common/fields';
import { pageQuery } from '../common/pagination';
import { zodDto } from '../common/validation';
import { webhookUrl } from './webhook-url';

export const SUBSCRIPTION_STATUSES = ['active', 'paused'] as const;
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

const eventTypes = z
  .array(z.enum(ALL_EVENT_TYPES as [string, ...string[]]))
  .min(1)
  .max(ALL_EVENT_TYPES.length)
  .transform((types) => [...new Set(types)])
  .describe('The event types delivered to this endpoint (the event catalogue)');

export const WebhookView = z.object({
  id: z.string(),
  url: z.string(),
  description: z.string(),
  event_types: z.array(z.string()),
  status: z.enum(SUBSCRIPTION_STATUSES),
  paused_reason: z.string().nullable().describe('Why deliveries stopped, when paused'),
  paused_at: isoOut.nullable(),
  consecutive_failures: z.number().int().describe('Failed attempts in a row; a success resets it'),
  previous_secret_expires_at: isoOut.nullable().describe('During a rotation: until when the previous secret still signs'),
  created_at: isoOut,
  updated_at: isoOut,
});
export class WebhookDto extends zodDto(WebhookView, 'output') {}

export const WebhookWithSecretView = WebhookView.extend({
  secret: z.string().describe('The signing secret (whsec_…): shown this once, keep it'),
});
export class WebhookWithSecretDto extends zodDto(WebhookWithSecretView, 'output') {}

export const CreateWebhook = z.object({
  url: webhookUrl,
  event_types: eventTypes,
  description: shortText(500).optional(),
});
export class CreateWebhookDto extends zodDto(CreateWebhook, 'input') {}

export const UpdateWebhook = z.object({
  url: webhookUrl.optional(),
  event_types: eventTypes.optional(),
  description: shortText(500).optional(),
  status: z.enum(SUBSCRIPTION_STATUSES).optional().describe('`active` resumes a paused endpoint; `paused` stops its deliveries'),
});
export class UpdateWebhookDto extends zodDto(UpdateWebhook, 'input') {}

export const DeliveryView = z.object({
  id: z.string(),
  event_id: z.string().describe('The webhook-id header: the same on every attempt'),
  event_type: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number().int(),
  next_attempt_at: isoOut.nullable().describe('When it is attempted next, while pending'),
  last_attempt_at: isoOut.nullable(),
  last_status: z.number().int().nullable().describe('The HTTP status of the last attempt, if an answer came'),
  last_error: z.string().nullable(),
  delivered_at: isoOut.nullable(),
  created_at: isoOut,
});
export class DeliveryDto extends zodDto(DeliveryView, 'output') {}

export const ListWebhooksQuery = pageQuery;
export class ListWebhooksQueryDto extends zodDto(ListWebhooksQuery, 'input') {}

export const ListDeliveriesQuery = pageQuery.extend({
  status: z.enum(DELIVERY_STATUSES).optional().describe('Only deliveries in this status'),
});
export class ListDeliveriesQueryDto extends zodDto(ListDeliveriesQuery, 'input') {}
