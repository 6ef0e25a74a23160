// PGlite does not lock its data directory: two launchers on one .data/ would corrupt it.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

function isRunning(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** Takes the lock or throws; returns the function that releases it. */
export function acquireDataLock(file) {
  if (existsSync(file)) {
    const pid = Number(readFileSync(file, 'utf8'));
    if (pid && pid !== process.pid && isRunning(pid)) {
      throw new Error(`another launcher (pid ${pid}) is using ${dirname(file)}; stop it first`);
    }
  }
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, String(process.pid));
  return () => rmSync(file, { force: true });
}
