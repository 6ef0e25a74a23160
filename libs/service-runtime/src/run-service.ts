import { armShutdownDeadline, installShutdownDeadline } from '@platform/observability';

export interface ServiceProcess<Config> {
  /** Names the service in the message of a failed start. */
  name: string;
  /** Reads and validates the environment; throws the service's configuration error. */
  loadConfig(): Config;
  /** Creates the service and listens. */
  start(config: Config): Promise<{ close(): Promise<unknown> }>;
  shutdownTimeoutMs(config: Config): number;
  /** A configuration error is printed as it is (it names each bad variable); anything else with the service's name. */
  isConfigError(error: unknown): boolean;
}

/**
 * A service's process, as main.ts runs it: start, tell the launcher it listens, bound how long
 * SIGTERM/SIGINT may take (the app closes through Nest's shutdown hooks), and end with the
 * launcher when it was forked by one, even when the launcher was killed outright. A failed
 * start prints why and exits 1.
 */
export function runService<Config>(service: ServiceProcess<Config>): void {
  const main = async () => {
    const config = service.loadConfig();
    const app = await service.start(config);
    // To the launcher: listening, and everything about starting is logged (its banner comes last).
    process.send?.({ type: 'listening' });
    const deadlineMs = service.shutdownTimeoutMs(config);
    installShutdownDeadline(deadlineMs);
    process.once('disconnect', () => {
      armShutdownDeadline(deadlineMs, 'launcher gone');
      void app.close().finally(() => process.exit(0));
    });
  };
  main().catch((error: unknown) => {
    if (service.isConfigError(error)) console.error((error as Error).message);
    else console.error(`${service.name} failed to start:`, error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
