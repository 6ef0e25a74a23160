import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AllowAnonymous, type AuthPrincipal, Principal, RequireScopes } from '@platform/bearer-auth';
import { ApiInvalidRequest, ApiNotFound, ApiPageOf } from '../common/api-docs';
import { API_PREFIX } from '../common/fields';
import { body, query } from '../common/validation';
import { schoolQuery, SchoolQueryDto } from '../tenancy/viewer';
import { CreateEvent, CreateEventDto, EventDto, ListEventsQuery, ListEventsQueryDto, UpdateEvent, UpdateEventDto } from './events.dto';
import { EventsService } from './events.service';

@ApiTags('events')
@Controller(`${API_PREFIX}/events`)
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @RequireScopes('events:read')
  @AllowAnonymous()
  @ApiOperation({ summary: 'List events', description: 'Anonymous: the public events of ?school=. Token: private events too.' })
  @ApiPageOf(EventDto)
  @ApiInvalidRequest()
  list(@Principal() principal: AuthPrincipal, @Query(query(ListEventsQuery)) q: ListEventsQueryDto) {
    return this.events.list(principal, q);
  }

  @Get(':eventId')
  @RequireScopes('events:read')
  @AllowAnonymous()
  @ApiOperation({ summary: 'Get an event', description: 'Anonymous callers get public events only.' })
  @ApiOkResponse({ type: EventDto })
  @ApiNotFound('event')
  get(@Principal() principal: AuthPrincipal, @Param('eventId') id: string, @Query(query(schoolQuery)) q: SchoolQueryDto) {
    return this.events.get(principal, id, q);
  }

  @Post()
  @RequireScopes('events:write')
  @ApiOperation({ summary: 'Create an event' })
  @ApiCreatedResponse({ type: EventDto })
  @ApiInvalidRequest()
  create(@Principal() principal: AuthPrincipal, @Body(body(CreateEvent)) input: CreateEventDto) {
    return this.events.create(principal, input);
  }

  @Patch(':eventId')
  @RequireScopes('events:write')
  @ApiOperation({ summary: 'Change an event' })
  @ApiOkResponse({ type: EventDto })
  @ApiInvalidRequest()
  @ApiNotFound('event')
  update(@Principal() principal: AuthPrincipal, @Param('eventId') id: string, @Body(body(UpdateEvent)) input: UpdateEventDto) {
    return this.events.update(principal, id, input);
  }

  @Delete(':eventId')
  @HttpCode(204)
  @RequireScopes('events:write')
  @ApiOperation({ summary: 'Delete an event' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiNotFound('event')
  async remove(@Principal() principal: AuthPrincipal, @Param('eventId') id: string): Promise<void> {
    await this.events.remove(principal, id);
  }
}
