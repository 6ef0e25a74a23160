import 'reflect-metadata';
import { armShutdownDeadline, installShutdownDeadline } from '@platform/observability';
import { startAuthServer } from './bootstrap';
import { ConfigError, loadAuthConfig } from './config/auth-config';

async function main(): Promise<void> {
  const config = loadAuthConfig();
  const app = await startAuthServer(config);
  // To the launcher: listening, and everything about starting is logged (its banner comes last).
  process.send?.({ type: 'listening' });
  // SIGTERM/SIGINT close the app through Nest's shutdown hooks (bootstrap); this bounds how long.
  installShutdownDeadline(config.operations.shutdownTimeoutMs);
  // Forked by the launcher (npm start): end with it, even when it was killed outright.
  process.once('disconnect', () => {
    armShutdownDeadline(config.operations.shutdownTimeoutMs, 'launcher gone');
    void app.close().finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(error.message);
  } else {
    console.error('auth-server failed to start:', error instanceof Error ? error.message : error);
  }
  process.exit(1);
});
