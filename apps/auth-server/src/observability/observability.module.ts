import { type DynamicModule, Global, Module } from '@nestjs/common';
import { OAUTH_PATHS } from '@platform/contracts';
import { type LoggingOptions, nestLoggerParams, REQUEST_LOGGING, requestLogging } from '@platform/logging';
import { LoggerModule } from 'nestjs-pino';
import { AuthMetrics } from './auth-metrics';
import { MetricsController } from './metrics.controller';

/** JSON request logs (nestjs-pino, requestLogging) and the service's metrics registry, for the whole app. */
@Global()
@Module({})
export class ObservabilityModule {
  static register(logging: Omit<LoggingOptions, 'service'>): DynamicModule {
    // Introspection's 200s at debug: the resource server asks it on every cache miss and logs
    // the request that caused it, whose x-request-id it forwards (libs/bearer-auth).
    const options: LoggingOptions = { service: 'auth-server', quietSuccessPaths: [OAUTH_PATHS.introspection], ...logging };
    return {
      module: ObservabilityModule,
      imports: [LoggerModule.forRoot(nestLoggerParams(options))],
      controllers: [MetricsController],
      // One registry and one request logger per application instance.
      providers: [
        { provide: AuthMetrics, useValue: new AuthMetrics() },
        { provide: REQUEST_LOGGING, useValue: requestLogging(options) },
      ],
      // REQUEST_LOGGING: installed as the first onRequest hook by createServiceApp (libs/service-runtime).
      exports: [AuthMetrics, REQUEST_LOGGING],
    };
  }
}
