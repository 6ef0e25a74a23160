import { Module } from '@nestjs/common';
import { EventsCleanupRepository } from './events-cleanup.repository';
import { EventsCleanupService } from './events-cleanup.service';

/** The resource server's clean-up job: the events' retention. */
@Module({ providers: [EventsCleanupRepository, EventsCleanupService] })
export class MaintenanceModule {}
