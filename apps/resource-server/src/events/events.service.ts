import { Injectable } from '@nestjs/common';
import type { AuthPrincipal } from '@platform/bearer-auth';
import { InvalidRequestError } from '@platform/oauth-errors';
import { notFound, write } from '../common/errors';
import { iso, isoOrNull } from '../common/fields';
import { byId, idPage, type Page, toPage } from '../common/pagination';
import type { Event } from '../generated/prisma/client';
import { isStaff, type SchoolQueryDto } from '../tenancy/viewer';
import { ViewerService } from '../tenancy/viewer.service';
import type { CreateEventDto, EventDto, ListEventsQueryDto, UpdateEventDto } from './events.dto';
import { EventsRepository } from './events.repository';

export function toEventView(event: Event): EventDto {
  return {
    id: event.id,
    title: event.title,
    description: event.description,
    location: event.location,
    online_url: event.onlineUrl,
    starts_at: iso(event.startsAt),
    ends_at: isoOrNull(event.endsAt),
    is_public: event.isPublic,
    capacity: event.capacity,
    created_at: iso(event.createdAt),
    updated_at: iso(event.updatedAt),
  };
}

function toData(input: UpdateEventDto) {
  return {
    title: input.title,
    description: input.description,
    location: input.location,
    onlineUrl: input.online_url,
    startsAt: input.starts_at,
    endsAt: input.ends_at,
    isPublic: input.is_public,
    capacity: input.capacity,
  };
}

function checkTimes(startsAt: Date, endsAt: Date | null): void {
  if (endsAt && endsAt <= startsAt) throw new InvalidRequestError('ends_at: must be after starts_at');
}

/** Anonymous callers see public events; tokens see private ones too. */
@Injectable()
export class EventsService {
  constructor(
    private readonly viewers: ViewerService,
    private readonly events: EventsRepository,
  ) {}

  async list(principal: AuthPrincipal, query: ListEventsQueryDto): Promise<Page<EventDto>> {
    const viewer = await this.viewers.resolve(principal, query.school);
    const page = idPage(query);
    const rows = await this.events.findEventsPage(
      viewer.schoolId,
      { publicOnly: !isStaff(viewer), startingAfter: query.upcoming ? new Date() : undefined },
      page,
    );
    return toPage(rows, page.take, byId, toEventView);
  }

  async get(principal: AuthPrincipal, id: string, query: SchoolQueryDto): Promise<EventDto> {
    const viewer = await this.viewers.resolve(principal, query.school);
    const event = await this.events.findEvent(viewer.schoolId, id, !isStaff(viewer));
    if (!event) throw notFound('event');
    return toEventView(event);
  }

  async create(principal: AuthPrincipal, input: CreateEventDto): Promise<EventDto> {
    const { schoolId } = await this.viewers.staff(principal);
    checkTimes(input.starts_at, input.ends_at ?? null);
    const event = await write(
      () => this.events.insertEvent(schoolId, { ...toData(input), title: input.title, startsAt: input.starts_at }),
      { notFound: 'school' },
    );
    return toEventView(event);
  }

  async update(principal: AuthPrincipal, id: string, input: UpdateEventDto): Promise<EventDto> {
    const { schoolId } = await this.viewers.staff(principal);
    const current = await this.events.findEvent(schoolId, id, false);
    if (!current) throw notFound('event');
    checkTimes(input.starts_at ?? current.startsAt, input.ends_at === undefined ? current.endsAt : input.ends_at);
    return toEventView(await write(() => this.events.updateEvent(schoolId, id, toData(input)), { notFound: 'event' }));
  }

  async remove(principal: AuthPrincipal, id: string): Promise<void> {
    const { schoolId } = await this.viewers.staff(principal);
    await write(() => this.events.deleteEvent(schoolId, id), { notFound: 'event' });
  }
}
