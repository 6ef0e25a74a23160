import { z } from 'zod';
import { dateTime, httpUrl, isoOut, longText, queryFlag, shortText, title } from '../common/fields';
import { pageQuery } from '../common/pagination';
import { zodDto } from '../common/validation';
import { schoolQuery } from '../tenancy/viewer';

export const EventView = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  location: z.string().nullable(),
  online_url: z.string().nullable(),
  starts_at: isoOut,
  ends_at: isoOut.nullable(),
  is_public: z.boolean().describe('Public events are visible without a token'),
  capacity: z.number().int().nullable(),
  created_at: isoOut,
  updated_at: isoOut,
});
export class EventDto extends zodDto(EventView, 'output') {}

export const ListEventsQuery = pageQuery.extend({
  ...schoolQuery.shape,
  upcoming: queryFlag.optional().describe('true: only events that have not started yet'),
});
export class ListEventsQueryDto extends zodDto(ListEventsQuery, 'input') {}

const eventFields = {
  title,
  description: longText.optional(),
  location: shortText(300).nullable().optional(),
  online_url: httpUrl.nullable().optional(),
  starts_at: dateTime,
  ends_at: dateTime.nullable().optional(),
  is_public: z.boolean().optional(),
  capacity: z.number().int().min(1).max(1_000_000).nullable().optional(),
};

export const CreateEvent = z.strictObject(eventFields);
export class CreateEventDto extends zodDto(CreateEvent, 'input') {}

export const UpdateEvent = z.strictObject(eventFields).partial();
export class UpdateEventDto extends zodDto(UpdateEvent, 'input') {}
