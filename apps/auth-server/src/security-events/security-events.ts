import { Injectable, Logger } from '@nestjs/common';
import type { SecurityEvent } from '@platform/contracts';
import { SecurityEventOutbox } from './security-event-outbox';
import { type SecurityEventInput, securityEventOf } from './security-event';

/**
 * Records the authorization server's security events: each goes to the outbox (committed before
 * `record` resolves), from where the relay sends it to the resource server's audit log.
 *
 * Recording never fails the request it records: an error (the database away) is logged with the
 * event's type and id, and the request answers as it would have. Where the change the event
 * reports is a transaction of its own, the call site appends the event inside it instead
 * (appendSecurityEventsIn), so that both commit or neither does.
 */
@Injectable()
export class SecurityEvents {
  private readonly logger = new Logger('SecurityEvents');

  constructor(private readonly outbox: SecurityEventOutbox) {}

  /** Never rejects. */
  async record(input: SecurityEventInput): Promise<void> {
    await this.recordEvent(securityEventOf(input));
  }

  /** An event built beforehand (to be appended in a transaction that then failed, say). Never rejects. */
  async recordEvent(event: SecurityEvent): Promise<void> {
    try {
      await this.outbox.append(event);
    } catch (error) {
      this.logger.error(`security event ${event.type} ${event.id} not recorded: ${(error as Error).message}`);
    }
  }
}
