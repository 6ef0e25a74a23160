import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { databaseErrorClassifier } from '@platform/database-errors';
import { createEventBus } from '@platform/event-bus';
import { registerErrorClassifier } from '@platform/oauth-errors';
import { completeServiceApp, createServiceApp, listenService, registerCors, type ServiceAppOptions } from '@platform/service-runtime';
import { AppModule } from './app.module';
import type { ResourceConfig } from './config/resource-config';
import { ResourceMetrics } from './observability/resource-metrics';
import { DemoDataSeeder } from './seed/demo-data.seeder';
import { registerUploadParsers } from './storage/upload-parsers';
import { publishOpenApiDocument } from './openapi';
import { registerMcpLimits } from './rate-limits/mcp-limits';
import { withRequestLimits } from './rate-limits/rate-limits.module';

/** What a caller (main.ts, a test) may choose: the event bus, the log level, where logs go. */
export type ResourceServerOptions = ServiceAppOptions;

export async function createResourceServer(
  config: ResourceConfig,
  options: ResourceServerOptions = {},
): Promise<NestFastifyApplication> {
  // The data layer's failures (database down: 503, text PostgreSQL refuses: 400), named by
  // libs/database-errors, for every toOAuthError of the process: the exception filter, the /mcp
  // handler and the bearer guard alike.
  registerErrorClassifier(databaseErrorClassifier);
  const eventBus = options.eventBus ?? (await createEventBus(config.redisUrl));
  const app = await createServiceApp(
    {
      service: 'resource-server',
      trustedProxies: config.trustedProxies,
      logLevel: config.operations.logLevel,
      module: (logging) => withRequestLimits(AppModule.register(config, eventBus, logging), config),
      metrics: ResourceMetrics,
    },
    options,
  );
  registerUploadParsers(app.getHttpAdapter().getInstance(), config.storage.maxUploadBytes);
  registerMcpLimits(app);
  // Browser clients on any origin call the API with bearer tokens, never cookies: no
  // credentials, so no origin can ride on a user's session.
  await registerCors(app, {
    origin: '*',
    credentials: false,
    methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['Authorization', 'Content-Type'],
    exposedHeaders: ['WWW-Authenticate'],
    maxAge: 600,
    // An OPTIONS request that is not a preflight (no Origin or Access-Control-Request-Method)
    // goes on to routing and gets the JSON error every other request gets, not a text/plain 400.
    strictPreflight: false,
  });
  await completeServiceApp(app, options.eventBus ? undefined : eventBus);
  // Generated from the routes' own decorators, once everything is registered.
  publishOpenApiDocument(app);
  if (config.seedDemoData) await app.get(DemoDataSeeder).seed();
  return app;
}

export async function startResourceServer(config: ResourceConfig, options: ResourceServerOptions = {}) {
  const app = await createResourceServer(config, options);
  await listenService(app, { name: 'ResourceServer', host: config.host, port: config.port, detail: `resource ${config.resource}` });
  return app;
}
