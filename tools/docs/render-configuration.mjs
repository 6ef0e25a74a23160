#!/usr/bin/env node
// Writes docs/configuration.md from the services' configuration schemas (their fields' defaults and
// values, the doc comments above them) and tools/docs/configuration-processes.ts. The spec
// tools/docs/configuration.spec.ts checks the same page in `npm test`; with
// UPDATE_DOCS_CONFIGURATION=1 it writes it instead (jest compiles the TypeScript sources).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const jest = join(root, 'node_modules', '.bin', 'jest');
const run = spawnSync(jest, ['-c', 'tools/docs/jest.config.cjs', 'configuration.spec.ts', '-t', 'docs/configuration.md'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, UPDATE_DOCS_CONFIGURATION: '1' },
});
process.exit(run.status ?? 1);
