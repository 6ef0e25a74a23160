import { closeConnectionsWhenIdle, describeRelease, releaseMemoryWhenIdle } from '@platform/lifecycle';
import { fastifyLoggerOptions, genReqId, pathOf, requestLogLevel } from '@platform/logging';
import { type LogLevel } from '@platform/operations-config';
import { frameworkErrorOptions } from '@platform/oauth-errors';
import { DEFAULT_UPLOAD_MAX_BYTES, GATEWAY_PATHS, SERVICE_BODY_LIMITS, SERVICES, serviceFor, serviceProbeFor, type ServiceName, UPLOAD_PATH } from '@platform/route-table';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { BodyTooLargeError, declaresTooLarge, discardBody, limitStream } from './body-limit';
import { forward } from './forward';
import type { DestinationStream } from 'pino';
import { registerProbes } from './probes';
import { CONNECT_REFUSAL, isAmbiguousPath, nonOriginTarget } from './request-target';
import { strictTransportSecurityFor } from './strict-transport-security';
import { toGatewayError, type GatewayError } from './upstream-error';
import { type ResolveAddresses, ServiceUpstreams } from './upstreams';

declare module 'fastify' {
  interface FastifyRequest {
    /** request.ip as it was when the request arrived (set by the first onRequest hook). */
    clientAddress: string;
  }
}

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
  /**
   * PUBLIC_BASE_URL's origin, if known: the one origin absolute-form targets may name, and, when
   * https, Strict-Transport-Security on every answer (request-target.ts, strict-transport-security.ts).
   */
  publicOrigin?: string;
  /** How often each upstream's host name is resolved again to its replicas' addresses (default 1 s). */
  dnsRefreshMs?: number;
  /** How a host name becomes addresses (default dns.lookup; tests: a hosts table). */
  resolve?: ResolveAddresses;
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
  /** The client's address as resolved under trustProxy (@fastify/proxy-addr) when the request arrived. */
  clientAddress: string;
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
  // Read before any of them is overwritten: under trustProxy they come from these headers.
  const ip = request.clientAddress;
  const protocol = request.protocol;
  const host = request.host;
  headers['x-forwarded-for'] = ip;
  headers['x-forwarded-proto'] = protocol;
  headers['x-forwarded-host'] = host;
  headers['x-request-id'] = request.id;
  return headers;
}

/** The headers of a JSON error answer the gateway writes itself, outside Fastify's reply. */
function errorHeaders(payload: string, requestId: string, strictTransportSecurity: string | undefined): OutgoingHttpHeaders {
  return {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
    'cache-control': 'no-store',
    'x-request-id': requestId,
    ...(strictTransportSecurity ? { 'strict-transport-security': strictTransportSecurity } : {}),
  };
}

/** The JSON error answer, written on the raw response (a forwarded request's reply is hijacked). */
function writeError(response: ServerResponse, requestId: string, { statusCode, body }: GatewayError, strictTransportSecurity: string | undefined): void {
  const payload = JSON.stringify(body);
  response.writeHead(statusCode, errorHeaders(payload, requestId, strictTransportSecurity));
  response.end(payload);
}

/** How long, and how much of the rest, a refused CONNECT's socket is read and dropped before it closes. */
const CONNECT_LINGER = { ms: 5_000, bytes: 64 * 1024 };

/**
 * CONNECT never reaches Fastify: Node hands its socket to the server's 'connect' listeners, and
 * with none it destroys the socket, no answer at all. The refusal is written on the socket, whose
 * sending side then closes; what the client still sends is read and dropped until it closes too,
 * for a bounded time and size (an answer closed under unread data is lost to a reset).
 */
function refuseConnect(socket: Socket, requestId: string, strictTransportSecurity: string | undefined): void {
  const { statusCode, body } = CONNECT_REFUSAL;
  const payload = JSON.stringify(body);
  const headers = Object.entries({ ...errorHeaders(payload, requestId, strictTransportSecurity), connection: 'close' })
    .map(([name, value]) => `${name}: ${String(value)}\r\n`)
    .join('');
  socket.on('error', () => socket.destroy());
  socket.end(`HTTP/1.1 ${statusCode} ${STATUS_CODES[statusCode]}\r\n${headers}\r\n${payload}`);
  let seen = 0;
  const timer = setTimeout(() => socket.destroy(), CONNECT_LINGER.ms);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > CONNECT_LINGER.bytes) socket.destroy();
  });
}

/** The methods forwarded (as @fastify/http-proxy did); others are 404 at the gateway. */
const FORWARDED_METHODS = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT'];

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

/** proxy-addr's trust function for "one proxy in front": the connecting peer, and no hop beyond it. */
function trustTheNearestHopOnly(_address: string, hop: number): boolean {
  return hop === 0;
}

/**
 * The public origin: answers its own probes, and forwards every other request, body streamed
 * and path and query untouched, to the service the route table names. Not yet listening; the
 * caller calls listen().
 */
export async function createGateway(options: GatewayOptions): Promise<FastifyInstance> {
  // true: exactly one hop (the proxy in front), never "every hop", which would make the
  // leftmost, client-written entry the address. A function: Fastify 5.12 reads a hop count
  // (the number 1) as "trust nothing".
  const trustProxy = options.trustProxy === true ? trustTheNearestHopOnly : (options.trustProxy ?? false);
  const bodyLimits = options.bodyLimits ?? SERVICE_BODY_LIMITS;
  const uploadMaxBytes = options.uploadMaxBytes ?? DEFAULT_UPLOAD_MAX_BYTES;
  const bodyLimitOf = (target: string, contentType: string | undefined) =>
    pathOf(target) === UPLOAD_PATH && isUploadMediaType(contentType) ? uploadMaxBytes : bodyLimits[serviceFor(target)];
  const publicOrigin = options.publicOrigin;
  const strictTransportSecurity = strictTransportSecurityFor(publicOrigin);
  /** Requests whose target rewriteUrl refused, with the answer onRequest gives them. */
  const refusedTargets = new WeakMap<IncomingMessage, GatewayError>();
  const logging = options.logLevel ? { service: 'gateway', level: options.logLevel, destination: options.logDestination } : undefined;
  const app = Fastify({
    logger: logging ? fastifyLoggerOptions(logging) : false,
    logController: new RequestLogs(),
    trustProxy,
    requestIdHeader: false,
    genReqId,
    // A request that reaches the gateway while it closes is forwarded, and its answer says
    // `Connection: close` (closeConnectionsWhenIdle), rather than refused with a 503.
    return503OnClosing: false,
    // Errors Fastify answers before any hook (bad UTF-8 in the path, headers over 16 KiB): the same JSON body.
    ...frameworkErrorOptions,
    // Before routing: an absolute-form target naming this origin becomes the origin-form it
    // stands for, so that the route table, the probes, the path checks and the service all see
    // one path; the Host becomes the target's authority (RFC 9112 §3.2.2). Any other target that
    // does not start with `/` is refused in onRequest: routed as `/` until then, since the router
    // answers some of them itself (`ftp://x/`: "not valid percent-encoded UTF-8", without hooks).
    rewriteUrl(request: IncomingMessage) {
      const url = request.url ?? '/';
      if (url.charCodeAt(0) === 0x2f) return url;
      const target = nonOriginTarget(request.method, url, request.headers.host, publicOrigin);
      if (!target.accepted) {
        refusedTargets.set(request, target.refusal);
        return '/';
      }
      request.headers.host = target.authority;
      return target.path;
    },
  });

  app.server.on('connect', (request: IncomingMessage, socket: Socket) => {
    const requestId = genReqId(request);
    // The completion line Fastify would write (RequestLogs), the peer as the client's address.
    const req = { method: request.method, url: request.url, host: request.headers.host, ip: socket.remoteAddress };
    app.log.info({ reqId: requestId, req, res: { statusCode: CONNECT_REFUSAL.statusCode } }, 'request completed');
    refuseConnect(socket, requestId, strictTransportSecurity);
  });

  // Callback hooks, not async ones: each runs on every request, and a promise each is not free.
  // A hook that answers does not call done(): Fastify stops at the sent reply.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    if (strictTransportSecurity) reply.header('strict-transport-security', strictTransportSecurity);
    done(null, payload);
  });

  app.decorateRequest('clientAddress', '');
  app.addHook('onRequest', (request, reply, done) => {
    // Resolved once, while the socket is there: forwarding and the completion log line read it.
    request.clientAddress = request.ip;
    const refusedTarget = refusedTargets.get(request.raw);
    if (refusedTarget) {
      // The request line's target again, for the completion log line.
      request.raw.url = request.originalUrl;
      sendError(reply, refusedTarget);
      return;
    }
    if (isAmbiguousPath(pathOf(request.url))) {
      sendError(reply, { statusCode: 400, body: { error: 'invalid_request', error_description: 'The path must not contain dot segments or backslashes' } });
      return;
    }
    const limit = bodyLimitOf(request.url, request.headers['content-type']);
    if (declaresTooLarge(request.headers['content-length'], limit)) {
      // discardBody never rejects: it ends at the body's end, past a byte limit or a time limit.
      void discardBody(request.raw).then(() => sendError(reply, toGatewayError(new BodyTooLargeError(limit), serviceFor(request.url))));
      return;
    }
    done();
  });

  // A body without Content-Length (chunked) is counted as it streams to the service; the
  // few content types Fastify parses itself (text/plain) arrive whole and are measured.
  app.addHook('preHandler', (request, reply, done) => {
    const limit = bodyLimitOf(request.url, request.headers['content-type']);
    if (request.body instanceof Readable) {
      if (request.headers['content-length'] === undefined) request.body = limitStream(request.body, limit);
    } else if (typeof request.body === 'string' && Buffer.byteLength(request.body) > limit) {
      sendError(reply, toGatewayError(new BodyTooLargeError(limit), serviceFor(request.url)));
      return;
    }
    done();
  });

  closeConnectionsWhenIdle(app);
  releaseMemoryWhenIdle(app, { report: (released) => app.log.debug(describeRelease(released)) });

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

  // Each service's replicas, balanced per request, their kept-alive connections closed with the gateway.
  const upstreams = Object.fromEntries(
    SERVICES.map((service) => [service, new ServiceUpstreams(options.upstreams[service], { refreshMs: options.dnsRefreshMs ?? 1_000, resolve: options.resolve })]),
  ) as Record<ServiceName, ServiceUpstreams>;
  await Promise.all(Object.values(upstreams).map((service) => service.start()));
  app.addHook('onClose', async () => {
    await Promise.all(Object.values(upstreams).map((service) => service.close()));
  });

  await app.register(async (scope) => {
    // Bodies stay streams, forwarded as they arrive (text/plain is parsed by Fastify and
    // measured in the preHandler above).
    const passThrough = (_request: FastifyRequest, payload: unknown, done: (error: Error | null, body?: unknown) => void) => done(null, payload);
    scope.addContentTypeParser('application/json', passThrough);
    scope.addContentTypeParser('*', passThrough);

    /**
     * Forwards to the service the route table names, path and query untouched, body streamed;
     * the answer is streamed back by forward() on the raw response (the reply is hijacked:
     * Fastify's completion log still runs on 'finish').
     */
    const handler = (request: FastifyRequest, reply: FastifyReply) => {
      const service = serviceFor(request.url);
      reply.hijack();
      const body = request.body as Readable | string | undefined;
      // Node has already answered any `Expect: 100-continue`; it is not the service's to answer again.
      delete request.headers['expect'];
      const headers = forwardedHeaders(request, request.headers);
      forward(upstreams[service], { method: request.method, target: request.url, headers, body, requestId: request.id, strictTransportSecurity }, reply.raw, (error) => {
        const answer = toGatewayError(error, service);
        if (answer.statusCode === 413) {
          void discardBody(request.raw).then(() => writeError(reply.raw, request.id, answer, strictTransportSecurity));
          return;
        }
        request.log.warn({ service, err: error }, 'upstream request failed');
        writeError(reply.raw, request.id, answer, strictTransportSecurity);
      });
    };
    scope.route({ method: FORWARDED_METHODS, url: '/', handler });
    scope.route({ method: FORWARDED_METHODS, url: '/*', handler });
  });

  return app;
}
