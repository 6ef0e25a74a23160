import {
  type ArgumentsHost,
  Catch,
  type ExceptionFilter,
  Injectable,
  Logger,
  ServiceUnavailableException,
} from '@nestjs/common';
import { type HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import { RedisConnection } from '@platform/redis-connection';

export type Probe = (signal: AbortSignal) => Promise<unknown>;

/**
 * Runs readiness checks, each against a deadline. The answer says only up or down (it is
 * reachable through the public origin at /<service>/readyz); the cause is logged.
 */
@Injectable()
export class ReadinessProbes {
  private readonly logger = new Logger('Readiness');

  constructor(private readonly indicators: HealthIndicatorService) {}

  async check(key: string, probe: Probe, timeoutMs: number): Promise<HealthIndicatorResult> {
    return this.run(key, probe, timeoutMs, false);
  }

  /**
   * A dependency the service runs without, degraded, once it has reached it (Redis: the
   * in-process fallbacks; the authorization server: the cached answers). It is required until
   * the process has reached it once, so that a wrong URL stalls a rollout; after that an outage
   * is reported (up, with the message) but does not fail readiness: every replica shares it,
   * and failing them all would take the whole platform out of rotation for a dependency it can
   * do without.
   */
  async checkDegradable(key: string, probe: Probe, timeoutMs: number, reachedOnce: () => boolean): Promise<HealthIndicatorResult> {
    return this.run(key, probe, timeoutMs, reachedOnce());
  }

  private async run(key: string, probe: Probe, timeoutMs: number, degradable: boolean): Promise<HealthIndicatorResult> {
    const indicator = this.indicators.check(key);
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      await withDeadline(probe(signal), signal);
      return indicator.up();
    } catch (error) {
      const message = signal.aborted ? `no answer within ${timeoutMs} ms` : 'unavailable';
      const cause = signal.aborted ? message : describe(error);
      if (degradable) {
        this.logger.warn(`${key} is unavailable (${cause}): serving without it`);
        return indicator.up({ message: `${message}; serving without it` });
      }
      this.logger.warn(`${key} is not ready: ${cause}`);
      return indicator.down({ message });
    }
  }
}

function withDeadline<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message || error.name : String(error);
}

/** GET a URL (another service's /healthz); anything but 2xx is down. */
export async function httpProbe(url: string, signal: AbortSignal): Promise<void> {
  const response = await fetch(url, { signal, headers: { accept: 'application/json' } });
  await response.body?.cancel();
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
}

/** A probe that remembers whether it has ever succeeded (for checkDegradable). */
export function rememberingReach(probe: Probe): { probe: Probe; reachedOnce: () => boolean } {
  let reached = false;
  return {
    probe: async (signal) => {
      await probe(signal);
      reached = true;
    },
    reachedOnce: () => reached,
  };
}

/**
 * PING on the process's shared Redis connection (RedisConnection): readiness asks Redis through
 * the connection the service itself uses, so "ready" means this process reaches Redis. Fails at
 * once while that connection is down; it reconnects by itself.
 */
export class RedisPing {
  private redis?: RedisConnection;
  private reached = false;

  constructor(
    private readonly url: string,
    /** The readiness check's own deadline: a frozen Redis is "no answer within …", not an error. */
    private readonly deadlineMs: number,
  ) {}

  /** Not awaited: the service starts while Redis is down, and is simply not ready. */
  start(): void {
    this.redis ??= RedisConnection.acquire(this.url);
  }

  async ping(): Promise<void> {
    if (!this.redis) throw new Error('not connected to Redis');
    await this.redis.command((client, abortSignal) => client.sendCommand(['PING'], { abortSignal }), this.deadlineMs);
    this.reached = true;
  }

  /** Whether a PING has ever been answered: readiness requires Redis until then (checkDegradable). */
  reachedOnce(): boolean {
    return this.reached;
  }

  async close(): Promise<void> {
    const redis = this.redis;
    this.redis = undefined;
    await redis?.release();
  }
}

/**
 * Terminus answers a failed check by throwing a 503 whose body is the report. The services'
 * global filter would turn it into an OAuth error body; on the health routes the report
 * itself is the answer.
 */
@Catch(ServiceUnavailableException)
export class HealthReportFilter implements ExceptionFilter {
  catch(exception: ServiceUnavailableException, host: ArgumentsHost): void {
    void host
      .switchToHttp()
      .getResponse<FastifyReply>()
      .status(503)
      .header('cache-control', 'no-store')
      .send(exception.getResponse());
  }
}
