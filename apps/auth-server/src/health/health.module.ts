import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { ReadinessProbes } from '@platform/health';
import { HealthController } from './health.controller';
import { Readiness } from './readiness';

// Terminus' own logger is off: ReadinessProbes logs each failing check with its cause.
@Module({
  imports: [TerminusModule.forRoot({ logger: false })],
  controllers: [HealthController],
  providers: [ReadinessProbes, Readiness],
})
export class HealthModule {}
