import { isClosing } from '@platform/lifecycle';
import { GATEWAY_PATHS, SERVICE_PROBES, SERVICES, type ServiceName } from '@platform/route-table';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { toGatewayError } from './upstream-error';

/** An upstream's liveness, for the gateway's readiness. */
const LIVENESS_TIMEOUT_MS = 1_000;
/** A forwarded probe: the service's own readiness checks each take up to ~1 s, in parallel. */
const FORWARDED_PROBE_TIMEOUT_MS = 3_000;

type Report = Record<string, { status: 'up' | 'down'; message?: string }>;

/** The shape of terminus' reports, so every probe on the platform reads alike. */
function report(results: Report) {
  const up = Object.fromEntries(Object.entries(results).filter(([, result]) => result.status === 'up'));
  const down = Object.fromEntries(Object.entries(results).filter(([, result]) => result.status === 'down'));
  return { status: Object.keys(down).length === 0 ? 'ok' : 'error', info: up, error: down, details: results };
}

async function alive(upstream: string): Promise<{ status: 'up' | 'down'; message?: string }> {
  try {
    const response = await fetch(`${upstream}/healthz`, { signal: AbortSignal.timeout(LIVENESS_TIMEOUT_MS) });
    await response.body?.cancel();
    return response.ok ? { status: 'up' } : { status: 'down', message: `answered ${response.status}` };
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError';
    return { status: 'down', message: timedOut ? `no answer within ${LIVENESS_TIMEOUT_MS} ms` : 'unreachable' };
  }
}

function notFound(_request: FastifyRequest, reply: FastifyReply) {
  return reply.code(404).header('cache-control', 'no-store').send({ error: 'not_found', error_description: 'No such resource' });
}

/** Methods other than GET/HEAD on the gateway's own paths: answered here too, never forwarded. */
const OTHER_METHODS = ['DELETE', 'OPTIONS', 'PATCH', 'POST', 'PUT'];

function getOnly(app: FastifyInstance, path: string, handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>): void {
  app.get(path, handler);
  app.route({ method: OTHER_METHODS, url: path, handler: notFound });
}

/**
 * The gateway's own answers: its liveness and readiness, each service's probes relayed from
 * `/<service>/healthz|readyz`, and 404 for /metrics, /internal and below, and anything else under
 * the services' probe prefixes (metrics and other internals stay on the services' own ports).
 */
export function registerProbes(app: FastifyInstance, upstreams: Record<ServiceName, string>): void {
  getOnly(app, GATEWAY_PATHS.liveness, async (_request, reply) =>
    reply.header('cache-control', 'no-store').send(report({})),
  );

  // A service once reached that stops answering leaves the gateway ready: every gateway replica
  // shares the services, and the other service's routes (and the other replicas) still answer.
  const reached = new Set<ServiceName>();
  getOnly(app, GATEWAY_PATHS.readiness, async (request, reply) => {
    if (isClosing(app)) {
      const shutdown = { status: 'down' as const, message: 'shutting down' };
      return reply.code(503).header('cache-control', 'no-store').send(report({ shutdown }));
    }
    const results = Object.fromEntries(
      await Promise.all(
        SERVICES.map(async (service) => {
          const result = await alive(upstreams[service]);
          if (result.status === 'up') reached.add(service);
          else if (reached.has(service)) return [service, { status: 'up' as const, message: `${result.message}; serving without it` }] as const;
          return [service, result] as const;
        }),
      ),
    );
    const body = report(results);
    if (body.status !== 'ok') request.log.warn({ error: body.error }, 'not ready: a service does not answer');
    return reply.code(body.status === 'ok' ? 200 : 503).header('cache-control', 'no-store').send(body);
  });

  app.all(GATEWAY_PATHS.metrics, notFound);
  app.all(GATEWAY_PATHS.internal, notFound);
  app.all(`${GATEWAY_PATHS.internal}/*`, notFound);

  for (const service of SERVICES) {
    for (const probe of SERVICE_PROBES) {
      getOnly(app, `/${service}${probe}`, async (request, reply) => {
        let response: Response;
        try {
          response = await fetch(`${upstreams[service]}${probe}`, {
            headers: { accept: 'application/json', 'x-request-id': request.id },
            signal: AbortSignal.timeout(FORWARDED_PROBE_TIMEOUT_MS),
          });
        } catch (error) {
          const timedOut = (error as Error).name === 'TimeoutError';
          const { statusCode, body } = toGatewayError(timedOut ? { statusCode: 504 } : error, service);
          return reply.code(statusCode).header('cache-control', 'no-store').send(body);
        }
        return reply
          .code(response.status)
          .header('cache-control', 'no-store')
          .type(response.headers.get('content-type') ?? 'application/json')
          .send(await response.text());
      });
    }
    app.all(`/${service}`, notFound);
    app.all(`/${service}/*`, notFound);
  }
}
