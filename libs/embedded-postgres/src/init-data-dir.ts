import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve as absolutePath } from 'node:path';
import { findWorkspaceRoot } from './workspace-root';

/** PostgreSQL writes PG_VERSION into every data directory it has initialised. */
export function isInitialised(dataDir: string): boolean {
  return existsSync(join(dataDir, 'PG_VERSION'));
}

/**
 * Runs initdb for a new data directory in a short-lived process of its own. PGlite keeps what
 * initdb loaded (its wasm instance, the unpacked file-system bundle) reachable for the life of the
 * process, so a process that created its data directories stays far larger than one that only
 * reopened them. Initialising elsewhere gives the long-lived process the smaller footprint on
 * the very first start too.
 */
export function initialiseDataDir(dataDir: string): Promise<void> {
  // `node -e` resolves from its working directory: the workspace root, whose node_modules has
  // PGlite (no require.resolve here: this module is also bundled by webpack into the apps).
  const script = [
    "const { PGlite } = require('@electric-sql/pglite');",
    'PGlite.create(process.argv[1]).then((db) => db.close()).then(',
    '  () => process.exit(0),',
    '  (error) => { console.error(error); process.exit(1); });',
  ].join('\n');
  mkdirSync(dataDir, { recursive: true });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--liftoff-only', '-e', script, absolutePath(dataDir)], {
      cwd: findWorkspaceRoot(),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0 && isInitialised(dataDir)) resolve();
      else reject(new Error(`Initialising the embedded PostgreSQL in ${dataDir} failed (${signal ?? `exit code ${code}`}):\n${stderr}`));
    });
  });
}
