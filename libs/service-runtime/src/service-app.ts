import { type DynamicModule, Logger as NestLogger, type LogLevel as NestLogLevel, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { EventBus } from '@platform/event-bus';
import { frameworkErrorOptions, OAuthExceptionFilter } from '@platform/oauth-errors';
import { closeConnectionsWhenIdle, describeRelease, releaseMemoryWhenIdle } from '@platform/lifecycle';
import { echoRequestId, genReqId, type LoggingOptions, REQUEST_LOGGING, requestLoggingHook } from '@platform/logging';
import { instrumentHttp, type ServiceMetrics } from '@platform/metrics';
import { type LogLevel, pinoLevelOf } from '@platform/operations-config';
import { SERVICE_BODY_LIMITS, type ServiceName } from '@platform/route-table';
import { Logger } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { registerJsonBodyParser } from './json-body';
import { registerStrictTransportSecurity } from './strict-transport-security';
import { limitQueryParameters, registerFormBodyParser } from './url-encoded';

/** What a caller (main.ts, a test) may choose about a service it creates. */
export interface ServiceAppOptions {
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

export interface ServiceAppDefinition {
  service: ServiceName;
  /** TRUSTED_PROXIES: the only peers whose X-Forwarded-* is believed. */
  trustedProxies: readonly string[];
  /** LOG_LEVEL of the service's configuration. */
  logLevel: LogLevel;
  /** The service's root module, given the logging it should use. */
  module(logging: Omit<LoggingOptions, 'service'>): DynamicModule;
  /** The service's metrics registry (a provider of the module): every request is counted in it. */
  metrics: Type<ServiceMetrics>;
  /** PUBLIC_BASE_URL, the origin clients use: when it is https, every answer carries HSTS. */
  publicBaseUrl?: string;
}

/**
 * The HTTP skeleton every service shares, before its own plugins: Fastify with the service's
 * body limit, the framework errors answered as OAuth errors, X-Forwarded-* believed only from
 * TRUSTED_PROXIES (`true` would let any peer that reaches the service name its own address, and
 * pick the budget its rate limits are counted under), request ids, pino as Nest's logger and the
 * request logs (REQUEST_LOGGING, which the module provides), the request metrics, the bounds of
 * every input (INPUT_LIMITS: the JSON and form body parsers, the query check) and HSTS on an https
 * origin. Finish it with completeServiceApp once the service's own plugins are in.
 */
export async function createServiceApp(definition: ServiceAppDefinition, options: ServiceAppOptions): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: SERVICE_BODY_LIMITS[definition.service],
    ...frameworkErrorOptions,
    trustProxy: [...definition.trustedProxies],
    routerOptions: { maxParamLength: 200 },
    // A request that reaches the service while it closes (on a connection that was busy when
    // close() began) is served, and its answer says `Connection: close` (closeConnectionsWhenIdle),
    // rather than refused with a 503 the client would see as a failure.
    return503OnClosing: false,
    genReqId,
  });
  const level = options.logger === undefined ? definition.logLevel : pinoLevelOf(options.logger);
  const app = await NestFactory.create<NestFastifyApplication>(definition.module({ level, destination: options.logDestination }), adapter, {
    bufferLogs: true,
    // Nest's adapter would add its own JSON and form parsers in app.init(); these are ours, below.
    bodyParser: false,
  });
  app.useLogger(app.get(Logger));
  // Nest would hold what it logged while building the app until listen(); pino is ready now,
  // and an app that fails in init() (or is only injected into, in tests) still says why.
  app.flushLogs();
  const fastify = app.getHttpAdapter().getInstance();
  // The first onRequest hook: every request has its completion line and its reqId on every line.
  fastify.addHook('onRequest', requestLoggingHook(app.get(REQUEST_LOGGING)));
  echoRequestId(fastify);
  registerStrictTransportSecurity(fastify, definition.publicBaseUrl);
  instrumentHttp(fastify, app.get(definition.metrics));
  registerJsonBodyParser(fastify);
  registerFormBodyParser(fastify);
  limitQueryParameters(fastify);
  const memoryLogger = new NestLogger('Memory');
  releaseMemoryWhenIdle(fastify, { report: (released) => memoryLogger.debug(describeRelease(released)) });
  return app;
}

/**
 * The rest of the skeleton, after the service's own plugins: one error filter, the shutdown
 * order, and the event bus closed with the app when the service made it (not a caller's).
 */
export async function completeServiceApp(app: NestFastifyApplication, eventBus: { close(): Promise<void> } | undefined): Promise<void> {
  // Nest routes Fastify's own errors (body parsing, size limits) through its exception
  // filters too, so this one filter answers every error of the service.
  app.useGlobalFilters(new OAuthExceptionFilter());
  // SIGTERM/SIGINT are runService's (closeService): not ready at once, an optional drain, then
  // app.close(), which stops listening, finishes in-flight requests, then closes Redis, the
  // event bus and the database (their hooks run after the HTTP server has closed).
  const fastify = app.getHttpAdapter().getInstance();
  closeConnectionsWhenIdle(fastify);
  if (eventBus) fastify.addHook('onClose', async () => eventBus.close());
  await app.init();
}

/** Listens, and says where and as what. */
export async function listenService(app: NestFastifyApplication, where: { name: string; host: string; port: number; detail: string }): Promise<void> {
  await app.listen({ host: where.host, port: where.port });
  new NestLogger(where.name).log(`listening on http://${where.host}:${where.port} (${where.detail})`);
}
