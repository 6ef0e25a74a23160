import 'reflect-metadata';
import { startAuthServer } from './bootstrap';
import { ConfigError, loadAuthConfig } from './config/auth-config';

async function main(): Promise<void> {
  const config = loadAuthConfig();
  await startAuthServer(config);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(error.message);
  } else {
    console.error('auth-server failed to start:', error instanceof Error ? error.message : error);
  }
  process.exit(1);
});
