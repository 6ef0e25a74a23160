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
import { DemoSeeder } from './accounts/demo-seeder';
import { registerAuthServerLimits } from './accounts/rate-limits';
import { AppModule } from './app.module';
import { registerAuthorizePlugins } from './authorize/plugins';
import type { AuthConfig } from './config/auth-config';
import { corsOptionsFor } from './cors/cors-policy';
import { AuthMetrics } from './observability/auth-metrics';

export interface AuthServerOptions {
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

export async function createAuthServer(
  config: AuthConfig,
  options: AuthServerOptions = {},
): Promise<NestFastifyApplication> {
  // The data layer's failures (database down: 503, text PostgreSQL refuses: 400), named by
  // libs/database-errors, for every toOAuthError of the process: the exception filter and the
  // authorize pages' filter alike.
  registerErrorClassifier(databaseErrorClassifier);
  const eventBus = options.eventBus ?? (await createEventBus(config.redisUrl));
  const adapter = new FastifyAdapter({
    bodyLimit: SERVICE_BODY_LIMITS['auth-server'],
    ...frameworkErrorOptions,
    // X-Forwarded-* is believed only from the gateway's addresses (TRUSTED_PROXIES): otherwise
    // any caller could pick the address its rate limits and login backoff are counted under.
    trustProxy: config.limits.rateLimits.trustedProxies,
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
  instrumentHttp(fastify, app.get(AuthMetrics));
  await registerAuthorizePlugins(fastify);
  await registerAuthServerLimits(app, config);
  // @fastify/cors (as the resource server), with a policy per path: cors/cors-policy.ts.
  app.enableCors({ delegator: (request, callback) => callback(null, corsOptionsFor(request.url)) });
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
  if (config.seedDemoData) await app.get(DemoSeeder).seed();
  return app;
}

export async function startAuthServer(config: AuthConfig, options: AuthServerOptions = {}) {
  const app = await createAuthServer(config, options);
  await app.listen({ host: config.host, port: config.port });
  new NestLogger('AuthServer').log(`listening on http://${config.host}:${config.port} (issuer ${config.issuer})`);
  return app;
}
