import { Body, Controller, Headers, HttpCode, Inject, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { PublicRoute } from '@platform/bearer-auth';
import { SECURITY_EVENTS_INGEST_PATH, type SecurityEvent, securityEventBatchSchema } from '@platform/contracts';
import { RESOURCE_CONFIG, type ResourceConfig } from '../config/resource-config';
import { body } from '../common/validation';
import { AuditLogService } from './audit-log.service';
import { InternalCredentials } from './internal-credentials';

/**
 * Where the authorization server sends the security events it records: a JSON array (at most
 * MAX_EVENTS_PER_INGEST), authenticated with the introspection client's credentials. Each event
 * is recorded once whatever the retries (its id is the key) and queued for the school's
 * webhooks in the same transaction. Internal: never reachable through the public origin (the
 * gateway and nginx answer 404 for /internal and below) and absent from /openapi.json.
 */
@ApiExcludeController()
@Controller()
export class SecurityEventsIngestController {
  private readonly credentials: InternalCredentials;

  constructor(
    private readonly audit: AuditLogService,
    @Inject(RESOURCE_CONFIG) config: ResourceConfig,
  ) {
    this.credentials = new InternalCredentials(config.introspection.clientId, config.introspection.clientSecret);
  }

  @Post(SECURITY_EVENTS_INGEST_PATH)
  @HttpCode(200)
  @PublicRoute()
  async ingest(@Headers('authorization') authorization: string | undefined, @Body() raw: unknown): Promise<{ received: number; recorded: number }> {
    // Authenticated before the body is looked at: a stranger learns nothing of its validation.
    this.credentials.check(authorization);
    const events = body(securityEventBatchSchema).transform(raw) as SecurityEvent[];
    return { received: events.length, recorded: await this.audit.record(events) };
  }
}
