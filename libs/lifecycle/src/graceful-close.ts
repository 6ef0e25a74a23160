import type { FastifyInstance } from 'fastify';

/** Services whose shutdown has begun: not ready, every answer says `Connection: close`. */
const closing = new WeakSet<FastifyInstance>();
/** Services that have stopped listening: connections are closed as soon as they are idle. */
const stopping = new WeakSet<FastifyInstance>();

/**
 * Shutdown begins (SIGTERM, before any drain): readiness fails from now on (isClosing) and every
 * answer carries `Connection: close`, so clients and the gateway open their next connection to
 * another replica while this one still answers. Idempotent; app.close() begins it too.
 */
export function beginClosing(fastify: FastifyInstance): void {
  closing.add(fastify);
}

/** Whether shutdown has begun: the probes answer not ready. */
export function isClosing(fastify: FastifyInstance): boolean {
  return closing.has(fastify);
}

/**
 * While the server closes, a connection whose request is still in flight stays open after its
 * answer (keep-alive), and Node's server.close() waits for it, up to the keep-alive timeout
 * (72 s in Fastify): closing idle connections once, when close() begins, misses it. So once
 * closing, answers say `Connection: close`, and once the server has stopped listening,
 * connections are closed as soon as they are idle. (Not during a drain: a kept-alive connection
 * closed under a client that is just sending on it loses that request.) A request that reaches
 * a closing server is answered, never refused: the service's `return503OnClosing` is off.
 */
export function closeConnectionsWhenIdle(fastify: FastifyInstance): void {
  fastify.addHook('preClose', async () => {
    closing.add(fastify);
    stopping.add(fastify);
  });
  // Callback hooks, not async ones: they run on every request, and a promise each is not free.
  fastify.addHook('onSend', (_request, reply, payload, done) => {
    if (closing.has(fastify)) reply.header('connection', 'close');
    done(null, payload);
  });
  fastify.addHook('onResponse', (_request, _reply, done) => {
    if (stopping.has(fastify)) setImmediate(() => fastify.server.closeIdleConnections());
    done();
  });
}
