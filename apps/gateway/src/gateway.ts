import httpProxy from '@fastify/http-proxy';
import {
  closeConnectionsWhenIdle,
  fastifyLoggerOptions,
  genReqId,
  type LogLevel,
  pathOf,
  requestLogLevel,
} from '@platform/observability';
import { frameworkErrorOptions } from '@platform/oauth-errors';
import { DEFAULT_UPLOAD_MAX_BYTES, GATEWAY_PATHS, SERVICE_BODY_LIMITS, serviceFor, serviceProbeFor, type ServiceName, UPLOAD_PATH } from '@platform/route-table';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { BodyTooLargeError, declaresTooLarge, discardBody, limitStream } from './body-limit';
import type { DestinationStream } from 'pino';
import { registerProbes } from './probes';
import { isAmbiguousPath } from './request-target';
import { toGatewayError, type GatewayError } from './upstream-error';

export interface GatewayOptions {
  /** Origins of the services, e.g. http://127.0.0.1:3001 (no path). */
  upstreams: Record<ServiceName, string>;
  /** JSON logs at this level (default: none). */
  logLevel?: LogLevel;
  /** Where the log lines go; stdout by default. */
  logDestination?: DestinationStream;
  /**
   * Who in front of the gateway may set X-Forwarded-*: false (default) when the gateway itself
   * is the public edge, so that clients cannot forge their address; true for exactly one proxy
   * you run (its last X-Forwarded-For entry is the client); or the proxies' addresses/CIDRs.
   */
  trustProxy?: boolean | string[];
  /** The largest body each service takes (default SERVICE_BODY_LIMITS); bigger ones get 413 here. */
  bodyLimits?: Readonly<Record<ServiceName, number>>;
  /** The largest body of UPLOAD_PATH (default DEFAULT_UPLOAD_MAX_BYTES, as the resource server's). */
  uploadMaxBytes?: number;
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
  /** The client's address as resolved under trustProxy (@fastify/proxy-addr). */
  ip: string;
  protocol: string;
  host: string;
}

function sendError(reply: ErrorReply, { statusCode, body }: GatewayError): void {
  reply.code(statusCode);
  reply.header('cache-control', 'no-store');
  reply.type('application/json');
  reply.send(body);
}

/**
 * The services trust the gateway's addresses (TRUSTED_PROXIES) and nobody else's, so what the
 * gateway sends is what they count: X-Forwarded-For is REPLACED by the one client address the
 * gateway resolved (the peer, or under trustProxy the address its trusted proxies name), never
 * passed on or appended to. A chain a client wrote itself therefore buys it nothing, and the
 * services need no knowledge of the proxies in front of the gateway.
 */
function forwardedHeaders(request: IncomingView, headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return {
    ...headers,
    'x-forwarded-for': request.ip,
    'x-forwarded-proto': request.protocol,
    'x-forwarded-host': request.host,
    'x-request-id': request.id,
  };
}

/**
 * The media types the upload route stores (images, PDF, text: the resource server's
 * UPLOAD_CONTENT_TYPES are all among them). Only these get the upload limit there; a JSON (or
 * any other) body on the upload route is held to the service's own limit, as the service does:
 * refused here, rather than streamed to a service that answers 413 before reading it and closes
 * the connection under the gateway's upload (a 502, depending on timing).
 */
function isUploadMediaType(contentType: string | undefined): boolean {
  const media = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return media.startsWith('image/') || media.startsWith('text/') || media === 'application/pdf';
}

function isProbe(target: string): boolean {
  const path = pathOf(target);
  return path === GATEWAY_PATHS.liveness || path === GATEWAY_PATHS.readiness || serviceProbeFor(path) !== undefined;
}

/** One line per request when it completes, at a level by outcome; probes at debug. */
class RequestLogs extends LogController {
  override incomingRequest(): void {
    // Nothing: the completion line says it all.
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const level = requestLogLevel(reply.statusCode, { probe: isProbe(request.url), error });
    reply.log[level]({ req: request, res: reply, responseTime: reply.elapsedTime, ...(error ? { err: error } : {}) }, 'request completed');
  }
}

/**
 * The public origin: answers its own probes, and forwards every other request, body streamed
 * and path and query untouched, to the service the route table names. Not yet listening; the
 * caller calls listen().
 */
export async function createGateway(options: GatewayOptions): Promise<FastifyInstance> {
  // true: exactly one hop (the proxy in front), never "every hop", which would make the
  // leftmost, client-written entry the address.
  const trustProxy = options.trustProxy === true ? 1 : (options.trustProxy ?? false);
  const bodyLimits = options.bodyLimits ?? SERVICE_BODY_LIMITS;
  const uploadMaxBytes = options.uploadMaxBytes ?? DEFAULT_UPLOAD_MAX_BYTES;
  const bodyLimitOf = (target: string, contentType: string | undefined) =>
    pathOf(target) === UPLOAD_PATH && isUploadMediaType(contentType) ? uploadMaxBytes : bodyLimits[serviceFor(target)];
  const logging = options.logLevel ? { service: 'gateway', level: options.logLevel, destination: options.logDestination } : undefined;
  const app = Fastify({
    logger: logging ? fastifyLoggerOptions(logging) : false,
    logController: new RequestLogs(),
    trustProxy,
    requestIdHeader: false,
    genReqId,
    // Errors Fastify answers before any hook (bad UTF-8 in the path, headers over 16 KiB): the same JSON body.
    ...frameworkErrorOptions,
  });

  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  app.addHook('onRequest', async (request, reply) => {
    if (isAmbiguousPath(pathOf(request.url))) {
      sendError(reply, { statusCode: 400, body: { error: 'invalid_request', error_description: 'The path must not contain dot segments or backslashes' } });
      return reply;
    }
    const service = serviceFor(request.url);
    const limit = bodyLimitOf(request.url, request.headers['content-type']);
    if (declaresTooLarge(request.headers['content-length'], limit)) {
      await discardBody(request.raw);
      sendError(reply, toGatewayError(new BodyTooLargeError(limit), service));
      return reply;
    }
    return undefined;
  });

  // A body without Content-Length (chunked) is counted as it streams to the service; the
  // few content types Fastify parses itself (text/plain) arrive whole and are measured.
  app.addHook('preHandler', async (request, reply) => {
    const service = serviceFor(request.url);
    const limit = bodyLimitOf(request.url, request.headers['content-type']);
    if (request.body instanceof Readable) {
      if (request.headers['content-length'] === undefined) request.body = limitStream(request.body, limit);
    } else if (typeof request.body === 'string' && Buffer.byteLength(request.body) > limit) {
      sendError(reply, toGatewayError(new BodyTooLargeError(limit), service));
      return reply;
    }
    return undefined;
  });

  closeConnectionsWhenIdle(app);

  app.setErrorHandler((error: { statusCode?: number; message: string }, request, reply) => {
    if (reply.raw.headersSent || reply.raw.destroyed) {
      // The answer was already under way (e.g. the client closed the connection while the
      // service's body streamed through, or a HEAD answer ended it): nothing left to send,
      // and nothing went wrong on our side.
      request.log.debug({ err: error }, 'response ended early');
      return;
    }
    const statusCode = error.statusCode ?? 500;
    if (statusCode < 500) {
      sendError(reply, { statusCode, body: { error: 'invalid_request', error_description: error.message } });
      return;
    }
    request.log.error({ err: error }, 'gateway error');
    sendError(reply, toGatewayError(error, serviceFor(request.url)));
  });

  registerProbes(app, options.upstreams);

  await app.register(httpProxy, {
    // Empty upstream + getUpstream: one catch-all proxy whose target the route table picks.
    upstream: '',
    disableRequestLogging: true,
    replyOptions: {
      getUpstream: (request) => options.upstreams[serviceFor(request.url)],
      // http-proxy re-serialises the parsed query; hand the raw one to reply-from instead.
      queryString: (_search, url) => (url.includes('?') ? url.slice(url.indexOf('?') + 1) : ''),
      rewriteRequestHeaders: (request, headers) => forwardedHeaders(request, headers),
      onError: async (reply, { error }) => {
        const service = serviceFor(reply.request.url);
        const answer = toGatewayError(error, service);
        if (answer.statusCode === 413) await discardBody(reply.request.raw);
        // reply-from has already logged the error itself.
        else reply.request.log.warn({ service }, 'upstream request failed');
        sendError(reply, answer);
      },
    },
  });

  return app;
}
