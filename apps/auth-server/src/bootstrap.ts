import { Logger, type LoggerService, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { createEventBus, type EventBus } from '@platform/event-bus';
import { OAuthExceptionFilter } from '@platform/oauth-errors';
import { DemoSeeder } from './accounts/demo-seeder';
import { AppModule } from './app.module';
import { registerAuthorizePlugins } from './authorize/plugins';
import type { AuthConfig } from './config/auth-config';

export interface AuthServerOptions {
  /** Defaults to Redis pub/sub when configured, the in-process bus otherwise. */
  eventBus?: EventBus;
  logger?: LoggerService | LogLevel[] | false;
}

/** Request bodies are small OAuth forms and client metadata: 64 KiB is generous. */
const BODY_LIMIT_BYTES = 64 * 1024;

export async function createAuthServer(
  config: AuthConfig,
  options: AuthServerOptions = {},
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
  await registerAuthorizePlugins(fastify, config);
  // Nest routes Fastify's own errors (body parsing, size limits) through its exception
  // filters too, so this one filter answers every error of the service.
  app.useGlobalFilters(new OAuthExceptionFilter());
  app.enableShutdownHooks();
  fastify.addHook('onClose', async () => {
    if (!options.eventBus) await eventBus.close();
  });
  await app.init();
  if (config.seedDemoData) await app.get(DemoSeeder).seed();
  return app;
}

export async function startAuthServer(config: AuthConfig, options: AuthServerOptions = {}) {
  const app = await createAuthServer(config, options);
  await app.listen({ host: config.host, port: config.port });
  new Logger('AuthServer').log(`listening on http://${config.host}:${config.port} (issuer ${config.issuer})`);
  return app;
}
