import httpProxy from '@fastify/http-proxy';
import { serviceFor, type ServiceName } from '@platform/route-table';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { requestIdFrom } from './request-id';
import { toGatewayError, type GatewayError } from './upstream-error';

export interface GatewayOptions {
  /** Origins of the services, e.g. http://127.0.0.1:3001 (no path). */
  upstreams: Record<ServiceName, string>;
  logger?: FastifyServerOptions['logger'];
  /**
   * Whether a proxy in front of the gateway may set X-Forwarded-*; off when the gateway
   * itself is the public edge, so that clients cannot forge their address.
   */
  trustProxy?: boolean;
}

// Structural views of Fastify's request and reply: the plugin hooks type them for any server kind.
interface ErrorReply {
  code(statusCode: number): unknown;
  header(name: string, value: string): unknown;
  type(contentType: string): unknown;
  send(payload: unknown): unknown;
}

interface IncomingView {
  id: string;
  headers: IncomingHttpHeaders;
  socket: { remoteAddress?: string };
  protocol: string;
  host: string;
}

function sendError(reply: ErrorReply, { statusCode, body }: GatewayError): void {
  reply.code(statusCode);
  reply.header('cache-control', 'no-store');
  reply.type('application/json');
  reply.send(body);
}

function forwardedHeaders(request: IncomingView, headers: IncomingHttpHeaders, trustProxy: boolean): IncomingHttpHeaders {
  const peer = request.socket.remoteAddress ?? '';
  const prior = trustProxy ? request.headers['x-forwarded-for'] : undefined;
  return {
    ...headers,
    'x-forwarded-for': prior ? `${prior}, ${peer}` : peer,
    'x-forwarded-proto': request.protocol,
    'x-forwarded-host': request.host,
    'x-request-id': request.id,
  };
}

/**
 * The public origin: forwards each request, body streamed and path and query untouched, to
 * the service the route table names. Not yet listening; the caller calls listen().
 */
export async function createGateway(options: GatewayOptions): Promise<FastifyInstance> {
  const trustProxy = options.trustProxy ?? false;
  const app = Fastify({
    logger: options.logger ?? false,
    trustProxy,
    requestIdHeader: false,
    genReqId: (req) => requestIdFrom(req.headers['x-request-id']),
  });

  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  app.setErrorHandler((error: { statusCode?: number; message: string }, request, reply) => {
    const statusCode = error.statusCode ?? 500;
    if (statusCode < 500) {
      sendError(reply, { statusCode, body: { error: 'invalid_request', error_description: error.message } });
      return;
    }
    request.log.error({ err: error }, 'gateway error');
    sendError(reply, toGatewayError(error, serviceFor(request.url)));
  });

  await app.register(httpProxy, {
    // Empty upstream + getUpstream: one catch-all proxy whose target the route table picks.
    upstream: '',
    disableRequestLogging: true,
    replyOptions: {
      getUpstream: (request) => options.upstreams[serviceFor(request.url)],
      // http-proxy re-serialises the parsed query; hand the raw one to reply-from instead.
      queryString: (_search, url) => (url.includes('?') ? url.slice(url.indexOf('?') + 1) : ''),
      rewriteRequestHeaders: (request, headers) => forwardedHeaders(request, headers, trustProxy),
      onError: (reply, { error }) => {
        const service = serviceFor(reply.request.url);
        // reply-from has already logged the error itself.
        reply.request.log.warn({ service }, 'upstream request failed');
        sendError(reply, toGatewayError(error, service));
      },
    },
  });

  return app;
}
