import { Logger, type LoggerService, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { createEventBus, type EventBus } from '@platform/event-bus';
import { OAuthExceptionFilter } from '@platform/oauth-errors';
import { AppModule } from './app.module';
import type { ResourceConfig } from './config/resource-config';
import { DemoDataSeeder } from './seed/demo-data.seeder';
import { registerUploadParsers } from './storage/upload-parsers';
import { publishOpenApiDocument } from './openapi';

export interface ResourceServerOptions {
  /** Defaults to Redis pub/sub when configured, the in-process bus otherwise. */
  eventBus?: EventBus;
  logger?: LoggerService | LogLevel[] | false;
}

/** JSON bodies (lesson content is the largest): 1 MiB. Uploads have their own limit. */
const BODY_LIMIT_BYTES = 1024 * 1024;

export async function createResourceServer(
  config: ResourceConfig,
  options: ResourceServerOptions = {},
): Promise<NestFastifyApplication> {
  const eventBus = options.eventBus ?? (await createEventBus(config.redisUrl));
  const adapter = new FastifyAdapter({
    bodyLimit: BODY_LIMIT_BYTES,
    // The gateway in front sets X-Forwarded-*; the services listen on loopback or a private network.
    trustProxy: true,
    routerOptions: { maxParamLength: 200 },
    return503OnClosing: true,
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.register(config, eventBus), adapter, {
    logger: options.logger ?? ['log', 'warn', 'error'],
  });
  const fastify = app.getHttpAdapter().getInstance();
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
  });
  // Nest routes Fastify's own errors (body parsing, size limits) through its exception
  // filters too, so this one filter answers every error of the service.
  app.useGlobalFilters(new OAuthExceptionFilter());
  app.enableShutdownHooks();
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
  new Logger('ResourceServer').log(`listening on http://${config.host}:${config.port} (resource ${config.resource})`);
  return app;
}
