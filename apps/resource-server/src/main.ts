import 'reflect-metadata';
import { runService } from '@platform/service-runtime';
import { startResourceServer } from './bootstrap';
import { ConfigError, loadResourceConfig } from './config/resource-config';

runService({
  name: 'resource-server',
  loadConfig: () => loadResourceConfig(),
  start: startResourceServer,
  shutdownTimeoutMs: (config) => config.operations.shutdownTimeoutMs,
  shutdownDrainMs: (config) => config.operations.shutdownDrainMs,
  isConfigError: (error) => error instanceof ConfigError,
});
