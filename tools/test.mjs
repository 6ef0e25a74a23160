#!/usr/bin/env node
// `npm test`: every project's jest suite in one run, against real PostgreSQL/Redis when
// DATABASE_URL/REDIS_URL are set, the embedded PostgreSQL otherwise. Extra args go to jest.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function describeMode() {
  const postgres = process.env.DATABASE_URL
    ? `real PostgreSQL (DATABASE_URL=${redact(process.env.DATABASE_URL)})`
    : 'embedded PostgreSQL (PGlite, one per suite, started from a copy of a migrated data directory; set DATABASE_URL for a real server)';
  const redis = process.env.REDIS_URL
    ? `real Redis (REDIS_URL=${redact(process.env.REDIS_URL)})`
    : 'no Redis: in-process event bus, Redis-only suites skipped (set REDIS_URL)';
  return `Test mode: ${postgres}; ${redis}`;
}

function redact(url) {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable URL)';
  }
}

console.log(describeMode());
const args = [join(root, 'node_modules/jest/bin/jest.js'), '-c', join(root, 'jest.config.cjs'), '--passWithNoTests=false'];
const jest = spawn(process.execPath, [...args, ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => jest.kill(signal));
jest.on('exit', (code, signal) => {
  console.log(`\n${describeMode()}\njest exited with ${signal ?? `code ${code}`}`);
  process.exit(code ?? 1);
});
