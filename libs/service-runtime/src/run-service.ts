import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { closeService } from './closing';

export interface ServiceProcess<Config> {
  /** Names the service in the message of a failed start. */
  name: string;
  /** Reads and validates the environment; throws the service's configuration error. */
  loadConfig(): Config;
  /** Creates the service and listens. */
  start(config: Config): Promise<NestFastifyApplication>;
  /** SHUTDOWN_TIMEOUT_MS: how long closing may take. */
  shutdownTimeoutMs(config: Config): number;
  /** SHUTDOWN_DRAIN_MS: how long to serve, not ready, after SIGTERM before closing (default 0). */
  shutdownDrainMs?(config: Config): number;
  /** A configuration error is printed as it is (it names each bad variable); anything else with the service's name. */
  isConfigError(error: unknown): boolean;
}

/**
 * A service's process, as main.ts runs it: start, tell the launcher it listens, close on
 * SIGTERM/SIGINT without dropping what reaches it (closeService: not ready at once, the drain,
 * then close within the deadline), and end with the launcher when it was forked by one, even
 * when the launcher was killed outright (no drain then: nothing routes here but the launcher's
 * own gateway). A failed start prints why and exits 1.
 */
export function runService<Config>(service: ServiceProcess<Config>): void {
  const main = async () => {
    const config = service.loadConfig();
    const app = await service.start(config);
    // To the launcher: listening, and everything about starting is logged (its banner comes last).
    process.send?.({ type: 'listening' });
    const deadlineMs = service.shutdownTimeoutMs(config);
    let closing = false;
    const close = (reason: string, drainMs: number) => {
      if (closing) return;
      closing = true;
      closeService(app, { reason, drainMs, deadlineMs }).then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => close(signal, service.shutdownDrainMs?.(config) ?? 0));
    process.once('disconnect', () => close('launcher gone', 0));
  };
  main().catch((error: unknown) => {
    if (service.isConfigError(error)) console.error((error as Error).message);
    else console.error(`${service.name} failed to start:`, error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
