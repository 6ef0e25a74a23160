import { type DynamicModule, Global, Module } from '@nestjs/common';
import { type LoggingOptions, nestLoggerParams, REQUEST_LOGGING, requestLogging } from '@platform/logging';
import { LoggerModule } from 'nestjs-pino';
import { MetricsController } from './metrics.controller';
import { ResourceMetrics } from './resource-metrics';

/** JSON request logs (nestjs-pino, requestLogging) and the service's metrics registry, for the whole app. */
@Global()
@Module({})
export class ObservabilityModule {
  /** `metrics`: made by the caller, which also hands it to the bearer validation. */
  static register(metrics: ResourceMetrics, logging: Omit<LoggingOptions, 'service'>): DynamicModule {
    const options: LoggingOptions = { service: 'resource-server', ...logging };
    return {
      module: ObservabilityModule,
      imports: [LoggerModule.forRoot(nestLoggerParams(options))],
      controllers: [MetricsController],
      // One request logger per application instance.
      providers: [
        { provide: ResourceMetrics, useValue: metrics },
        { provide: REQUEST_LOGGING, useValue: requestLogging(options) },
      ],
      // REQUEST_LOGGING: installed as the first onRequest hook by createServiceApp (libs/service-runtime).
      exports: [ResourceMetrics, REQUEST_LOGGING],
    };
  }
}
