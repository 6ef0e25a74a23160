import { Logger } from '@nestjs/common';

/**
 * A deadline on SIGTERM/SIGINT, beside Nest's own shutdown hooks (enableShutdownHooks), which
 * close the app: stop accepting, finish in-flight requests, then close the database and Redis.
 * If that has not ended the process in time (a request that never finishes, a connection
 * that never closes), exit 1 and say so, rather than wait for SIGKILL in silence.
 */
export function installShutdownDeadline(timeoutMs: number, logger = new Logger('Shutdown')): void {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.log(`${signal}: closing (deadline ${timeoutMs} ms)`);
      setTimeout(() => {
        logger.error(`shutdown did not finish within ${timeoutMs} ms; exiting`);
        process.exit(1);
      }, timeoutMs).unref();
    });
  }
}
