import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { armShutdownDeadline, beginClosing, type ShutdownLogger } from '@platform/lifecycle';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ClosingOptions {
  /** What started it (SIGTERM, "launcher gone"), for the log lines. */
  reason: string;
  /** How long to go on serving, not ready, before closing (SHUTDOWN_DRAIN_MS). */
  drainMs: number;
  /** How long closing may take after the drain before the process exits 1 (SHUTDOWN_TIMEOUT_MS). */
  deadlineMs: number;
  logger?: ShutdownLogger;
}

/**
 * Stops a service without dropping what reaches it. At once: readiness fails and every answer
 * says `Connection: close`, so the orchestrator and the gateway stop sending here and reconnect
 * elsewhere. Then, after `drainMs` of serving as usual: app.close() stops listening, answers
 * what is in flight or arrives on a connection still open (never a 503), closes the
 * connections as they fall idle, and only then the database, Redis and the event bus.
 */
export async function closeService(app: NestFastifyApplication, options: ClosingOptions): Promise<void> {
  const logger = options.logger ?? new Logger('Shutdown');
  beginClosing(app.getHttpAdapter().getInstance());
  if (options.drainMs > 0) {
    logger.log(`${options.reason}: not ready; serving ${options.drainMs} ms more before closing`);
    await sleep(options.drainMs);
  }
  const disarm = armShutdownDeadline(options.deadlineMs, options.reason, logger);
  await app.close();
  disarm();
}
