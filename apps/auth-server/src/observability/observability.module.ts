import { type DynamicModule, Global, Inject, type MiddlewareConsumer, Module, type NestModule, RequestMethod } from '@nestjs/common';
import { type LoggingOptions, nestLoggerParams, requestLogging, type RequestLoggingMiddleware } from '@platform/observability';
import { LoggerModule } from 'nestjs-pino';
import { AuthMetrics } from './auth-metrics';
import { MetricsController } from './metrics.controller';

const REQUEST_LOGGING = Symbol('REQUEST_LOGGING');

/** JSON request logs (nestjs-pino, requestLogging) and the service's metrics registry, for the whole app. */
@Global()
@Module({})
export class ObservabilityModule implements NestModule {
  static register(logging: Omit<LoggingOptions, 'service'>): DynamicModule {
    const options: LoggingOptions = { service: 'auth-server', ...logging };
    return {
      module: ObservabilityModule,
      imports: [LoggerModule.forRoot(nestLoggerParams(options))],
      controllers: [MetricsController],
      // One registry and one request logger per application instance.
      providers: [
        { provide: AuthMetrics, useValue: new AuthMetrics() },
        { provide: REQUEST_LOGGING, useValue: requestLogging(options) },
      ],
      exports: [AuthMetrics],
    };
  }

  constructor(@Inject(REQUEST_LOGGING) private readonly requestLogging: RequestLoggingMiddleware) {}

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(this.requestLogging).forRoutes({ path: '*', method: RequestMethod.ALL });
  }
}
