import { Global, Module } from '@nestjs/common';
import { EventOutbox } from './event-outbox';

/** The business events' outbox, for every module that writes (global, as the database). */
@Global()
@Module({ providers: [EventOutbox], exports: [EventOutbox] })
export class OutboxModule {}
