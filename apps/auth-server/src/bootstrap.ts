import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { databaseErrorClassifier } from '@platform/database-errors';
import { createEventBus } from '@platform/event-bus';
import { registerErrorClassifier } from '@platform/oauth-errors';
import { completeServiceApp, createServiceApp, listenService, registerCors, type ServiceAppOptions } from '@platform/service-runtime';
import { DemoSeeder } from './accounts/demo-seeder';
import { AppModule } from './app.module';
import { registerAuthorizePlugins } from './authorize/plugins';
import type { AuthConfig } from './config/auth-config';
import { corsOptionsFor } from './cors/cors-policy';
import { AuthMetrics } from './observability/auth-metrics';
import { registerAuthServerLimits } from './route-limits';

/** What a caller (main.ts, a test) may choose: the event bus, the log level, where logs go. */
export type AuthServerOptions = ServiceAppOptions;

export async function createAuthServer(
  config: AuthConfig,
  options: AuthServerOptions = {},
): Promise<NestFastifyApplication> {
  // The data layer's failures (database down: 503, text PostgreSQL refuses: 400), named by
  // libs/database-errors, for every toOAuthError of the process: the exception filter and the
  // authorize pages' filter alike.
  registerErrorClassifier(databaseErrorClassifier);
  const eventBus = options.eventBus ?? (await createEventBus(config.redisUrl));
  const app = await createServiceApp(
    {
      service: 'auth-server',
      // The rate limits and the login backoff are counted per client address.
      trustedProxies: config.limits.rateLimits.trustedProxies,
      // HSTS when the public origin is https.
      publicBaseUrl: config.issuer,
      logLevel: config.operations.logLevel,
      module: (logging) => AppModule.register(config, eventBus, logging),
      metrics: AuthMetrics,
    },
    options,
  );
  // @fastify/cors (as the resource server), with a policy per path: cors/cors-policy.ts.
  await registerCors(app, { delegator: (request, callback) => callback(null, corsOptionsFor(request.url)) });
  await registerAuthorizePlugins(app.getHttpAdapter().getInstance());
  await registerAuthServerLimits(app, config);
  await completeServiceApp(app, options.eventBus ? undefined : eventBus);
  if (config.seedDemoData) await app.get(DemoSeeder).seed();
  return app;
}

export async function startAuthServer(config: AuthConfig, options: AuthServerOptions = {}) {
  const app = await createAuthServer(config, options);
  await listenService(app, { name: 'AuthServer', host: config.host, port: config.port, detail: `issuer ${config.issuer}` });
  return app;
}
