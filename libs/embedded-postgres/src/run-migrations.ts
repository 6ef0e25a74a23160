import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { findWorkspaceRoot } from './workspace-root';

export type SchemaName = 'auth' | 'resource';

/**
 * Applies the committed migrations of a service's schema (`prisma migrate deploy` through
 * tools/prisma/cli.cjs, no engine download). Rejects with the CLI's output on failure.
 */
export function runMigrations(schemaName: SchemaName, databaseUrl: string): Promise<void> {
  const root = findWorkspaceRoot();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'tools/prisma/cli.cjs'), 'migrate-deploy', schemaName], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`Migrations of "${schemaName}" failed (${signal ?? `exit code ${code}`}):\n${output}`));
    });
  });
}
