import { type DynamicModule, Global, Module } from '@nestjs/common';
import { type LoggingOptions, nestLoggerParams } from '@platform/observability';
import { LoggerModule } from 'nestjs-pino';
import { MetricsController } from './metrics.controller';
import { ResourceMetrics } from './resource-metrics';

/** JSON request logs (nestjs-pino) and the service's metrics registry, for the whole app. */
@Global()
@Module({})
export class ObservabilityModule {
  /** `metrics`: made by the caller, which also hands it to the bearer validation. */
  static register(metrics: ResourceMetrics, logging: Omit<LoggingOptions, 'service'>): DynamicModule {
    return {
      module: ObservabilityModule,
      imports: [LoggerModule.forRoot(nestLoggerParams({ service: 'resource-server', ...logging }))],
      controllers: [MetricsController],
      providers: [{ provide: ResourceMetrics, useValue: metrics }],
      exports: [ResourceMetrics],
    };
  }
}
