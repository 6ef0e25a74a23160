import { loadGatewayConfig } from './config';
import { createGateway } from './gateway';

async function main(): Promise<void> {
  const config = loadGatewayConfig();
  const app = await createGateway({
    upstreams: config.upstreams,
    trustProxy: config.trustProxy,
    logger: { level: config.logLevel },
  });
  const shutdown = (signal: NodeJS.Signals) => {
    app.log.info({ signal }, 'gateway stopping');
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  await app.listen({ host: config.host, port: config.port });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
