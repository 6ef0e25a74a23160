import { Logger as NestLogger, type LogLevel as NestLogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { createEventBus, type EventBus } from '@platform/event-bus';
import { databaseErrorClassifier } from '@platform/database-errors';
import { frameworkErrorOptions, OAuthExceptionFilter, registerErrorClassifier } from '@platform/oauth-errors';
import {
  closeConnectionsWhenIdle,
  echoRequestId,
  genReqId,
  instrumentHttp,
  pinoLevelOf,
} from '@platform/observability';
import { SERVICE_BODY_LIMITS } from '@platform/route-table';
import { Logger } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { AppModule } from './app.module';
import type { ResourceConfig } from './config/resource-config';
import { ResourceMetrics } from './observability/resource-metrics';
import { DemoDataSeeder } from './seed/demo-data.seeder';
import { registerUploadParsers } from './storage/upload-parsers';
import { publishOpenApiDocument } from './openapi';

export interface ResourceServerOptions {
  /** Defaults to Redis pub/sub when configured, the in-process bus otherwise. */
  eventBus?: EventBus;
  /**
   * Overrides LOG_LEVEL the way Nest's option reads (tests write `['error']` or `false`): the
   * most verbose level listed, or nothing at all.
   */
  logger?: NestLogLevel[] | false;
  /** Where the JSON log lines go; stdout by default. */
  logDestination?: DestinationStream;
}

export async function createResourceServer(
  config: ResourceConfig,
  options: ResourceServerOptions = {},
): Promise<NestFastifyApplication> {
  // The data layer's failures (database down: 503, text PostgreSQL refuses: 400), named by
  // libs/database-errors, for every toOAuthError of the process: the exception filter, the /mcp
  // handler and the bearer guard alike.
  registerErrorClassifier(databaseErrorClassifier);
  const eventBus = options.eventBus ?? (await createEventBus(config.redisUrl));
  const adapter = new FastifyAdapter({
    bodyLimit: SERVICE_BODY_LIMITS['resource-server'],
    ...frameworkErrorOptions,
    // X-Forwarded-* is believed only from the gateway's addresses (TRUSTED_PROXIES), as in the
    // auth server: `true` would let any peer that reaches the service name its own address.
    trustProxy: config.trustedProxies,
    routerOptions: { maxParamLength: 200 },
    // During app.close(): requests on kept-alive connections get 503 while in-flight ones finish.
    return503OnClosing: true,
    genReqId,
  });
  const level = options.logger === undefined ? config.operations.logLevel : pinoLevelOf(options.logger);
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.register(config, eventBus, { level, destination: options.logDestination }),
    adapter,
    { bufferLogs: true },
  );
  app.useLogger(app.get(Logger));
  // Nest would hold what it logged while building the app until listen(); pino is ready now,
  // and an app that fails in init() (or is only injected into, in tests) still says why.
  app.flushLogs();
  const fastify = app.getHttpAdapter().getInstance();
  echoRequestId(fastify);
  instrumentHttp(fastify, app.get(ResourceMetrics));
  registerUploadParsers(fastify, config.storage.maxUploadBytes);
  // Browser clients on any origin call the API with bearer tokens, never cookies: no
  // credentials, so no origin can ride on a user's session.
  app.enableCors({
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
  // Nest routes Fastify's own errors (body parsing, size limits) through its exception
  // filters too, so this one filter answers every error of the service.
  app.useGlobalFilters(new OAuthExceptionFilter());
  // On SIGTERM/SIGINT: stop listening, finish in-flight requests, then close Redis, the event
  // bus and the database (their hooks run after the HTTP server has closed).
  app.enableShutdownHooks();
  closeConnectionsWhenIdle(fastify);
  fastify.addHook('onClose', async () => {
    if (!options.eventBus) await eventBus.close();
  });
  await app.init();
  // Generated from the routes' own decorators, once everything is registered.
  publishOpenApiDocument(app);
  if (config.seedDemoData) await app.get(DemoDataSeeder).seed();
  return app;
}

export async function startResourceServer(config: ResourceConfig, options: ResourceServerOptions = {}) {
  const app = await createResourceServer(config, options);
  await app.listen({ host: config.host, port: config.port });
  new NestLogger('ResourceServer').log(`listening on http://${config.host}:${config.port} (resource ${config.resource})`);
  return app;
}
