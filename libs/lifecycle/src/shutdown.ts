import { Logger } from '@nestjs/common';

/**
 * Where the deadline says what it does: a Nest Logger in the services, a pino logger's
 * info/error in the gateway (which has no Nest).
 */
export interface ShutdownLogger {
  log(message: string): void;
  error(message: string): void;
}

/**
 * Exits 1 (and says so) if the process is still alive `timeoutMs` from now: closing did not
 * finish (a request that never ends, a database connection that never closes after the
 * server died). The timer is unref'd, so a process that finishes closing exits at once; the
 * function returned disarms it (closing finished, and the process is not to exit: a test).
 */
export function armShutdownDeadline(timeoutMs: number, reason: string, logger: ShutdownLogger = new Logger('Shutdown')): () => void {
  logger.log(`${reason}: closing (deadline ${timeoutMs} ms)`);
  const timer = setTimeout(() => {
    logger.error(`shutdown did not finish within ${timeoutMs} ms; exiting`);
    process.exit(1);
  }, timeoutMs).unref();
  return () => clearTimeout(timer);
}
