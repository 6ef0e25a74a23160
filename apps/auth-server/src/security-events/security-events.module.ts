import { Module } from '@nestjs/common';
import { SecurityEventOutbox } from './security-event-outbox';
import { SecurityEvents } from './security-events';
import { SecurityEventsRelay } from './security-events-relay';

/** Recording security events (SecurityEvents) for the modules whose flows cause them. Needs the global DatabaseModule. */
@Module({
  providers: [SecurityEventOutbox, SecurityEvents],
  exports: [SecurityEventOutbox, SecurityEvents],
})
export class SecurityEventsModule {}

/**
 * The relay that sends the outbox to the resource server: the application's alone (AppModule), so
 * that a test module built of a few feature modules records events without sending them anywhere.
 * Needs AUTH_CONFIG.
 */
@Module({
  imports: [SecurityEventsModule],
  providers: [SecurityEventsRelay],
  exports: [SecurityEventsRelay],
})
export class SecurityEventsRelayModule {}
