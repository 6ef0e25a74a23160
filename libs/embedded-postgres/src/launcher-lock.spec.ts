import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { acquireLauncherLock, LAUNCHER_LOCK_FILE } from './launcher-lock';
import { findWorkspaceRoot } from './workspace-root';

/** The launcher's own lock (tools/platform/lock.mjs), taken in a process of its own as `npm start` takes it. */
const LAUNCHER_LOCK_MODULE = pathToFileURL(join(findWorkspaceRoot(), 'tools/platform/lock.mjs')).href;
const launcherScript = (then: string) => `import { acquireDataLock } from '${LAUNCHER_LOCK_MODULE}'; acquireDataLock(process.argv[1]); ${then}`;

/** A launcher holding the lock on `file` until killed. */
async function runningLauncher(file: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', launcherScript("console.log('locked'); setInterval(() => {}, 1000);"), file], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the launcher's lock exited with ${code}`)));
  });
  return child;
}

describe('acquireLauncherLock (the lock of tools/platform/lock.mjs)', () => {
  let dataRoot: string;
  const lockFile = () => join(dataRoot, LAUNCHER_LOCK_FILE);

  beforeEach(() => {
    dataRoot = mkdtempSync(join(tmpdir(), 'launcher-lock-'));
  });

  afterEach(() => {
    rmSync(dataRoot, { recursive: true, force: true });
  });

  it('writes its pid where the launcher does, creating the data directory, and removes it on release', () => {
    const root = join(dataRoot, 'new');
    const release = acquireLauncherLock(root, 'AUTH_DATABASE_URL');
    expect(readFileSync(join(root, 'launcher.pid'), 'utf8')).toBe(String(process.pid));
    release();
    expect(existsSync(join(root, 'launcher.pid'))).toBe(false);
  });

  it('takes over the lock of a process that is gone', () => {
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    writeFileSync(lockFile(), String(gone));
    acquireLauncherLock(dataRoot, 'AUTH_DATABASE_URL');
    expect(readFileSync(lockFile(), 'utf8')).toBe(String(process.pid));
  });

  it('refuses while the launcher holds it, naming its pid and the variable that points elsewhere', async () => {
    const launcher = await runningLauncher(lockFile());
    try {
      expect(() => acquireLauncherLock(dataRoot, 'RESOURCE_DATABASE_URL')).toThrow(
        `the platform (pid ${launcher.pid}) is running on ${dataRoot}: stop it first (the embedded database serves one process), or set RESOURCE_DATABASE_URL`,
      );
    } finally {
      launcher.kill();
    }
  });

  it('keeps the launcher from starting while it is held', () => {
    const release = acquireLauncherLock(dataRoot, 'AUTH_DATABASE_URL');
    try {
      const launcher = spawnSync(process.execPath, ['--input-type=module', '-e', launcherScript(''), lockFile()], { encoding: 'utf8' });
      expect(launcher.status).not.toBe(0);
      expect(launcher.stderr).toContain(`another launcher (pid ${process.pid}) is using ${dataRoot}`);
    } finally {
      release();
    }
  });
});
