import { Module } from '@nestjs/common';
import { AuditLogController } from './audit-log.controller';
import { AuditLogRepository } from './audit-log.repository';
import { AuditLogService } from './audit-log.service';
import { SecurityEventsIngestController } from './security-events-ingest.controller';

/** The school's security events: recorded from the authorization server, read by its owners. */
@Module({
  controllers: [AuditLogController],
  providers: [AuditLogRepository, AuditLogService],
  exports: [AuditLogService, AuditLogRepository],
})
export class AuditLogModule {}

/** The internal route the authorization server sends its security events to (not part of /api/v1). */
@Module({ imports: [AuditLogModule], controllers: [SecurityEventsIngestController] })
export class SecurityEventsIngestModule {}
