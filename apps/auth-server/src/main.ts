import 'reflect-metadata';
import { runService } from '@platform/service-runtime';
import { startAuthServer } from './bootstrap';
import { ConfigError, loadAuthConfig } from './config/auth-config';

runService({
  name: 'auth-server',
  loadConfig: () => loadAuthConfig(),
  start: startAuthServer,
  shutdownTimeoutMs: (config) => config.operations.shutdownTimeoutMs,
  shutdownDrainMs: (config) => config.operations.shutdownDrainMs,
  isConfigError: (error) => error instanceof ConfigError,
});
