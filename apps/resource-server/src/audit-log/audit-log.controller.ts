import { Controller, Get, Query } from '@nestjs/common';
import { ApiForbiddenResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AuthPrincipal, Principal, RequireScopes } from '@platform/bearer-auth';
import { ApiInvalidRequest, ApiPageOf, ErrorDto } from '../common/api-docs';
import { API_PREFIX } from '../common/fields';
import { query } from '../common/validation';
import { ListSecurityEventsQuery, ListSecurityEventsQueryDto, SecurityEventDto } from './audit-log.dto';
import { AuditLogService } from './audit-log.service';

@ApiTags('audit-log')
@Controller(`${API_PREFIX}/audit-log`)
export class AuditLogController {
  constructor(private readonly audit: AuditLogService) {}

  @Get()
  @RequireScopes('audit_log:read')
  @ApiOperation({
    summary: 'List the school’s security events',
    description:
      'Owners only. Sign-ins, consents, tokens issued, revocations, registrations, rate-limit trips… recorded by the authorization server; newest first. Never a secret, code or token.',
  })
  @ApiPageOf(SecurityEventDto)
  @ApiInvalidRequest()
  @ApiForbiddenResponse({ type: ErrorDto, description: '`access_denied`: the token’s user is not an owner of the school' })
  list(@Principal() principal: AuthPrincipal, @Query(query(ListSecurityEventsQuery)) q: ListSecurityEventsQueryDto) {
    return this.audit.list(principal, q);
  }
}
