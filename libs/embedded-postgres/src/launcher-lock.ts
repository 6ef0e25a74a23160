import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The launcher's lock file in its data directory (tools/platform/start.mjs): the holder's pid. */
export const LAUNCHER_LOCK_FILE = 'launcher.pid';

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The launcher's lock on its data directory (tools/platform/lock.mjs, same file and format):
 * PGlite serves one process and does not lock its files, so a staff CLI takes the same lock.
 * While the platform runs in embedded mode the CLI refuses; the launcher refuses to start
 * while the CLI holds it. `urlVariable`: the service's database URL variable, which points the
 * CLI elsewhere, named in the refusal. Returns the function that releases the lock.
 */
export function acquireLauncherLock(dataRoot: string, urlVariable: string): () => void {
  const file = join(dataRoot, LAUNCHER_LOCK_FILE);
  if (existsSync(file)) {
    const pid = Number(readFileSync(file, 'utf8'));
    if (pid && pid !== process.pid && isRunning(pid)) {
      throw new Error(
        `the platform (pid ${pid}) is running on ${dataRoot}: stop it first (the embedded database serves one process), or set ${urlVariable}`,
      );
    }
  }
  mkdirSync(dataRoot, { recursive: true });
  writeFileSync(file, String(process.pid));
  return () => rmSync(file, { force: true });
}
