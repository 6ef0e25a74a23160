import { armShutdownDeadline } from '@platform/observability';
import { loadGatewayConfig } from './config';
import { createGateway } from './gateway';

async function main(): Promise<void> {
  const config = loadGatewayConfig();
  const app = await createGateway({
    upstreams: config.upstreams,
    trustProxy: config.trustProxy,
    bodyLimits: config.bodyLimits,
    uploadMaxBytes: config.uploadMaxBytes,
    publicOrigin: config.publicOrigin,
    logLevel: config.logLevel,
  });
  // The services' deadline, said in the gateway's own (pino) log.
  const logger = { log: (message: string) => app.log.info(message), error: (message: string) => app.log.error(message) };
  let stopping = false;
  const shutdown = (reason: string) => {
    if (stopping) return;
    stopping = true;
    // close(): stop listening, finish the requests in flight (return503OnClosing answers new
    // ones on kept-alive connections), then exit; past the deadline, exit 1 anyway.
    armShutdownDeadline(config.shutdownTimeoutMs, reason, logger);
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  // Forked by the launcher (npm start): do not outlive it if it dies without stopping us.
  if (process.send) process.once('disconnect', () => shutdown('launcher gone'));
  await app.listen({ host: config.host, port: config.port });
  // To the launcher: listening, and everything about starting is logged (its banner comes next).
  process.send?.({ type: 'listening' });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
