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
 * server died). The timer is unref'd, so a process that finishes closing exits at once.
 */
export function armShutdownDeadline(timeoutMs: number, reason: string, logger: ShutdownLogger = new Logger('Shutdown')): void {
  logger.log(`${reason}: closing (deadline ${timeoutMs} ms)`);
  setTimeout(() => {
    logger.error(`shutdown did not finish within ${timeoutMs} ms; exiting`);
    process.exit(1);
  }, timeoutMs).unref();
}

/**
 * A deadline on SIGTERM/SIGINT, beside Nest's own shutdown hooks (enableShutdownHooks), which
 * close the app: stop accepting, finish in-flight requests, then close the database and Redis.
 * If that has not ended the process in time, exit 1 rather than wait for SIGKILL in silence.
 */
export function installShutdownDeadline(timeoutMs: number, logger: ShutdownLogger = new Logger('Shutdown')): void {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => armShutdownDeadline(timeoutMs, signal, logger));
  }
}
