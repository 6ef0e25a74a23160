import { armShutdownDeadline, beginClosing } from '@platform/lifecycle';
import { setTimeout as sleep } from 'node:timers/promises';
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
    dnsRefreshMs: config.dnsRefreshMs,
  });
  // The services' deadline, said in the gateway's own (pino) log.
  const logger = { log: (message: string) => app.log.info(message), error: (message: string) => app.log.error(message) };
  let stopping = false;
  const shutdown = async (reason: string, drainMs: number) => {
    if (stopping) return;
    stopping = true;
    // Not ready at once, and every answer says Connection: close; serve through the drain
    // (SHUTDOWN_DRAIN_MS), then close(): stop listening, finish the requests in flight (and
    // those arriving on connections still open), then exit; past the deadline, exit 1 anyway.
    beginClosing(app);
    if (drainMs > 0) {
      logger.log(`${reason}: not ready; serving ${drainMs} ms more before closing`);
      await sleep(drainMs);
    }
    armShutdownDeadline(config.shutdownTimeoutMs, reason, logger);
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void shutdown(signal, config.shutdownDrainMs));
  // Forked by the launcher (npm start): do not outlive it if it dies without stopping us.
  if (process.send) process.once('disconnect', () => void shutdown('launcher gone', 0));
  await app.listen({ host: config.host, port: config.port });
  // To the launcher: listening, and everything about starting is logged (its banner comes next).
  process.send?.({ type: 'listening' });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
