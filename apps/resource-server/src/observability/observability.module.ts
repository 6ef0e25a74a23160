import { type DynamicModule, Global, Inject, type MiddlewareConsumer, Module, type NestModule, RequestMethod } from '@nestjs/common';
import { type LoggingOptions, nestLoggerParams, requestLogging, type RequestLoggingMiddleware } from '@platform/observability';
import { LoggerModule } from 'nestjs-pino';
import { MetricsController } from './metrics.controller';
import { ResourceMetrics } from './resource-metrics';

const REQUEST_LOGGING = Symbol('REQUEST_LOGGING');

/** JSON request logs (nestjs-pino, requestLogging) and the service's metrics registry, for the whole app. */
@Global()
@Module({})
export class ObservabilityModule implements NestModule {
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
      exports: [ResourceMetrics],
    };
  }

  constructor(@Inject(REQUEST_LOGGING) private readonly requestLogging: RequestLoggingMiddleware) {}

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(this.requestLogging).forRoutes({ path: '*', method: RequestMethod.ALL });
  }
}
