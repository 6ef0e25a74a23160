import type { FastifyInstance } from 'fastify';

/**
 * While the server closes, a connection whose request is still in flight stays open after its
 * answer (keep-alive), and Node's server.close() waits for it, up to the keep-alive timeout
 * (72 s in Fastify): closing idle connections once, when close() begins, misses it. So once
 * closing, answers say `Connection: close` and connections are closed as soon as they are idle.
 */
export function closeConnectionsWhenIdle(fastify: FastifyInstance): void {
  let closing = false;
  fastify.addHook('preClose', async () => {
    closing = true;
  });
  // Callback hooks, not async ones: they run on every request, and a promise each is not free.
  fastify.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  fastify.addHook('onResponse', (_request, _reply, done) => {
    if (closing) setImmediate(() => fastify.server.closeIdleConnections());
    done();
  });
}
