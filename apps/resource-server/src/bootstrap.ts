import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { databaseErrorClassifier } from '@platform/database-errors';
import { createEventBus } from '@platform/event-bus';
import { registerErrorClassifier } from '@platform/oauth-errors';
import { completeServiceApp, createServiceApp, listenService, type ServiceAppOptions } from '@platform/service-runtime';
import { AppModule } from './app.module';
import type { ResourceConfig } from './config/resource-config';
import { registerResourceCors } from './cors/cors-policy';
import { McpBrowserOrigins, registerMcpHttpPolicy } from './mcp';
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
      // HSTS when the public origin is https.
      publicBaseUrl: config.resource,
      logLevel: config.operations.logLevel,
      module: (logging) => withRequestLimits(AppModule.register(config, eventBus, logging), config),
      metrics: ResourceMetrics,
    },
    options,
  );
  registerUploadParsers(app.getHttpAdapter().getInstance(), config.storage.maxUploadBytes);
  registerMcpLimits(app);
  // Browser clients: the API from any origin without credentials; /mcp from the public origin
  // and MCP_ALLOWED_ORIGINS only, refusing every other Origin (cors/cors-policy.ts, mcp/mcp-http-policy.ts).
  const mcpOrigins = new McpBrowserOrigins(config.resource, config.mcpAllowedOrigins);
  await registerResourceCors(app, mcpOrigins);
  registerMcpHttpPolicy(app, mcpOrigins);
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
