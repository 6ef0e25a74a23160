import { Injectable } from '@nestjs/common';
import type { AuthPrincipal } from '@platform/bearer-auth';
import type { SecurityEvent } from '@platform/contracts';
import { iso } from '../common/fields';
import { byId, idPage, type Page, toPage } from '../common/pagination';
import type { AuditEvent } from '../generated/prisma/client';
import { ViewerService } from '../tenancy/viewer.service';
import type { ListSecurityEventsQueryDto, SecurityEventDto } from './audit-log.dto';
import { AuditLogRepository } from './audit-log.repository';

export function toSecurityEventView(event: AuditEvent): SecurityEventDto {
  return {
    id: event.id,
    type: event.type,
    occurred_at: iso(event.occurredAt),
    school_id: event.schoolId,
    actor: { type: event.actorType as SecurityEventDto['actor']['type'], id: event.actorId },
    subject: event.subjectType !== null && event.subjectId !== null ? { type: event.subjectType, id: event.subjectId } : null,
    client_id: event.clientId,
    address: event.address,
    request_id: event.requestId,
    outcome: event.outcome as SecurityEventDto['outcome'],
    data: event.data as Record<string, unknown>,
  };
}

/** A school's security events, for its owners; every school's for staff (the CLI). */
@Injectable()
export class AuditLogService {
  constructor(
    private readonly viewers: ViewerService,
    private readonly audit: AuditLogRepository,
  ) {}

  async list(principal: AuthPrincipal, query: ListSecurityEventsQueryDto): Promise<Page<SecurityEventDto>> {
    const { schoolId } = await this.viewers.owner(principal, 'read its security events');
    const page = idPage(query);
    const filter = {
      schoolId,
      type: query.type,
      since: query.since,
      until: query.until,
      actorId: query.actor_id,
      clientId: query.client_id,
      subjectId: query.subject_id,
    };
    return toPage(await this.audit.findEventsPage(filter, page), page.take, byId, toSecurityEventView);
  }

  record(events: readonly SecurityEvent[]): Promise<number> {
    return this.audit.recordSecurityEvents(events);
  }
}
