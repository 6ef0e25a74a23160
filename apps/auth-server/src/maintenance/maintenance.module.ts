import { Module } from '@nestjs/common';
import { MaintenanceRepository } from './maintenance.repository';
import { MaintenanceService } from './maintenance.service';

/** The scheduled clean-up (see MaintenanceService). Needs the global DatabaseModule and AUTH_CONFIG. */
@Module({
  providers: [MaintenanceRepository, MaintenanceService],
  exports: [MaintenanceService],
})
export class MaintenanceModule {}
