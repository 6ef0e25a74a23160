// Also compiled to dist/libs/embedded-postgres (target `build`) for tools/platform/start.mjs.
export { EMBEDDED_POSTGRES_SETTINGS, startEmbeddedPostgres, type EmbeddedPostgres, type EmbeddedPostgresOptions } from './embedded-postgres';
export { runMigrations, type SchemaName } from './run-migrations';
export { findWorkspaceRoot } from './workspace-root';
export { acquireLauncherLock, LAUNCHER_LOCK_FILE } from './launcher-lock';
export {
  derivedDatabaseUrl,
  openServiceDatabase,
  type ConnectionSettings,
  type DisconnectableClient,
  type ServiceDatabase,
  type ServiceDatabaseLocation,
} from './service-database';
