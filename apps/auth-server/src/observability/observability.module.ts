import { type DynamicModule, Global, Module } from '@nestjs/common';
import { type LoggingOptions, nestLoggerParams } from '@platform/observability';
import { LoggerModule } from 'nestjs-pino';
import { AuthMetrics } from './auth-metrics';
import { MetricsController } from './metrics.controller';

/** JSON request logs (nestjs-pino) and the service's metrics registry, for the whole app. */
@Global()
@Module({})
export class ObservabilityModule {
  static register(logging: Omit<LoggingOptions, 'service'>): DynamicModule {
    return {
      module: ObservabilityModule,
      imports: [LoggerModule.forRoot(nestLoggerParams({ service: 'auth-server', ...logging }))],
      controllers: [MetricsController],
      // One registry per application instance.
      providers: [{ provide: AuthMetrics, useValue: new AuthMetrics() }],
      exports: [AuthMetrics],
    };
  }
}
