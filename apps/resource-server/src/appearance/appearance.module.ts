import { Module } from '@nestjs/common';
import { AppearanceController } from './appearance.controller';
import { AppearanceRepository } from './appearance.repository';
import { AppearanceService } from './appearance.service';

@Module({ controllers: [AppearanceController], providers: [AppearanceRepository, AppearanceService] })
export class AppearanceModule {}
