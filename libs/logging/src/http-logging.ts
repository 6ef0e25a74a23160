import type { IncomingMessage, ServerResponse } from 'node:http';
import { hostname } from 'node:os';
import type { Params } from 'nestjs-pino';
import { type Store, storage } from 'nestjs-pino/storage';
import pino, { type DestinationStream, type Level, type Logger, type LoggerOptions } from 'pino';
import type { Options as PinoHttpOptions } from 'pino-http';
import { defaultLogDestination, defaultRequestLogDestination } from './log-format';
import type { LogLevel } from '@platform/operations-config';
import { isOperationalPath } from '@platform/route-table';
import { censor, censoredHeaders, pathOf, REDACT_PATHS } from './redaction';
import { REQUEST_ID_HEADER, requestIdFrom } from './request-id';

export interface LoggingOptions {
  /** Named on every line, so lines of several services can share one stream. */
  service: string;
  level: LogLevel;
  /**
   * Default: stdout, as JSON lines, or readable lines when stdout is a terminal (LOG_FORMAT,
   * see log-format.ts). Tests pass a stream they can read.
   */
  destination?: DestinationStream;
  /**
   * Paths whose successful answers (2xx) are logged at debug, like the probes: machine-to-machine
   * calls at a high rate whose caller logs the request that caused them (the auth server's
   * introspection: the resource server forwards its x-request-id). Their refusals and failures
   * keep their line at info or error, with the request id.
   */
  quietSuccessPaths?: readonly string[];
}

/** JSON lines: ISO time, level by name, the service; credentials redacted wherever they appear. */
export function baseLoggerOptions({ service, level }: LoggingOptions): LoggerOptions {
  return {
    level,
    base: { service, pid: process.pid, hostname: hostname() },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: REDACT_PATHS, censor },
  };
}

/**
 * Probes at debug (they come every few seconds), and a quiet path's successful answers (see
 * LoggingOptions.quietSuccessPaths); failures at error; everything else at info.
 */
export function requestLogLevel(statusCode: number, { probe, quiet = false, error }: { probe: boolean; quiet?: boolean; error?: unknown }): Level {
  if (probe) return 'debug';
  if (error || statusCode >= 500) return 'error';
  if (quiet && statusCode < 300) return 'debug';
  return 'info';
}

/** The request part of a completion line. Never a body, never the query. */
class LoggedRequest {
  constructor(
    readonly method: string | undefined,
    readonly url: string,
    /** A copy, credentials censored (censoredHeaders). */
    readonly headers?: Record<string, unknown>,
    readonly remoteAddress?: string,
  ) {}
}

/** The response part of a completion line. */
class LoggedResponse {
  constructor(
    readonly statusCode: number,
    /** A copy, credentials censored (censoredHeaders). */
    readonly headers?: Record<string, unknown>,
  ) {}
}

/**
 * Which completion lines carry the (redacted) headers and the peer: every line at debug and
 * trace; otherwise only requests answered 3xx, 4xx or 5xx. A successful request (2xx) at info
 * gets a short line: reqId, method, path, status, duration, service. Copying and redacting
 * headers on every request would cost more than the rest of the line; a redirect keeps its (censored)
 * Location, a failure everything there is to see.
 */
export function requestLineIsDetailed(statusCode: number, level: LogLevel, error?: unknown): boolean {
  return statusCode >= 300 || error !== undefined || level === 'debug' || level === 'trace';
}

/** The headers a response was sent with: Fastify's own and any set on the raw response (handOverToRaw, Node). */
export type ResponseHeadersOf = () => Record<string, unknown>;

function completionLine(req: IncomingMessage, res: ServerResponse, detailed: boolean, responseHeaders?: ResponseHeadersOf) {
  if (!detailed) return { req: new LoggedRequest(req.method, pathOf(req.url)), res: new LoggedResponse(res.statusCode) };
  const sent = responseHeaders ? { ...responseHeaders(), ...res.getHeaders() } : res.getHeaders();
  return {
    req: new LoggedRequest(req.method, pathOf(req.url), censoredHeaders('req', req.headers), req.socket?.remoteAddress),
    res: new LoggedResponse(res.statusCode, censoredHeaders('res', sent)),
  };
}

/**
 * Completion lines carry a LoggedRequest, kept as is; any other value logged as `req` (a raw
 * request, say) gets the short form, never its headers. The same for `res`.
 */
function serializeRequest(value: IncomingMessage | LoggedRequest): LoggedRequest {
  return value instanceof LoggedRequest ? value : new LoggedRequest(value.method, pathOf(value.url));
}

function serializeResponse(value: ServerResponse | LoggedResponse): LoggedResponse {
  return value instanceof LoggedResponse ? value : new LoggedResponse(value.statusCode);
}

/** pino options of a service's request logs (see nestLoggerParams and requestLogging). */
function serviceLoggerOptions(options: LoggingOptions): LoggerOptions {
  // No pino redaction on these lines: a `req` or `res` can only reach them through the
  // serializers below, and only a completion line's LoggedRequest/LoggedResponse holds headers,
  // censored when copied: pino's redaction would run on every line and every child.
  const { redact: _redact, ...base } = baseLoggerOptions(options);
  return { ...base, serializers: { req: serializeRequest, res: serializeResponse, err: pino.stdSerializers.err } };
}

/**
 * nestjs-pino's parameters for a NestJS service: its Logger writes lines outside requests with
 * these options, and inside a request through the request's own logger, which requestLogging
 * makes and binds (`useExisting`: nestjs-pino makes no pino-http of its own). `forRoutes: []`:
 * nestjs-pino's own binding middleware would repeat requestLogging's binding and, being a Nest
 * middleware, make @fastify/middie run on every request (see requestLoggingHook).
 */
export function nestLoggerParams(options: LoggingOptions): Params {
  const destination = options.destination ?? defaultLogDestination();
  const pinoOptions = serviceLoggerOptions(options) as PinoHttpOptions<IncomingMessage, ServerResponse>;
  return { pinoHttp: destination ? [pinoOptions, destination] : pinoOptions, useExisting: true, forRoutes: [] };
}

type LoggedIncomingMessage = IncomingMessage & { id?: unknown };
/**
 * A Connect-style middleware, plus where the response's headers are read at completion when the
 * server keeps them itself (Fastify writes its reply headers with writeHead, which Node does not
 * keep for getHeaders()).
 */
export type RequestLoggingMiddleware = (req: IncomingMessage, res: ServerResponse, next: () => void, responseHeaders?: ResponseHeadersOf) => void;

/** The provider of a service's request logging (ObservabilityModule), which createServiceApp installs. */
export const REQUEST_LOGGING = Symbol('REQUEST_LOGGING');

/**
 * requestLogging as a Fastify `onRequest` hook, the first one of the service (as middie's was):
 * Nest's middleware would run it through @fastify/middie, which for every request of every route
 * copies ip, ips (proxy-addr over X-Forwarded-For), hostname, protocol and the parsed query onto
 * the raw request and decodes the path to match middleware routes.
 * Same semantics: the hook runs before routing, so 404s and refusals get their line too, and the
 * rest of the request runs inside nestjs-pino's request context.
 */
export function requestLoggingHook(middleware: RequestLoggingMiddleware) {
  return (request: { id: string; raw: IncomingMessage }, reply: { raw: ServerResponse; getHeaders(): Record<string, unknown> }, done: () => void): void => {
    (request.raw as LoggedIncomingMessage).id = request.id;
    middleware(request.raw, reply.raw, done, () => reply.getHeaders());
  };
}

/**
 * nestjs-pino's request context (its Store: `logger`, read by its Logger and PinoLogger) with the
 * request's child logger made on first use: most requests log nothing but their completion
 * line, which the root logger writes with the reqId itself. pino's child() costs a copy of the
 * logger and its bindings' serialization, on every request that never needed it.
 */
class RequestLogContext {
  private child: Logger | undefined;
  readonly responseLogger = undefined;

  constructor(
    private readonly root: Logger,
    readonly reqId: string,
  ) {}

  get logger(): Logger {
    this.child ??= this.root.child({ reqId: this.reqId });
    return this.child;
  }
}

/**
 * The request logs of a service (a Connect-style middleware; requestLoggingHook installs it in Fastify): every line
 * logged while handling a request carries its `reqId`, which is the incoming x-request-id (the
 * gateway sets one on every request), and each request ends with one completion line, whose
 * content requestLineIsDetailed decides.
 *
 * It does what pino-http did for these services, minus what they never used: pino-http built
 * two child loggers (one of them serializing the request), three response listeners and a
 * synthetic Error per 5xx on every request, more than the line itself costs.
 */
export function requestLogging(options: LoggingOptions): RequestLoggingMiddleware {
  const root = pino(serviceLoggerOptions(options), options.destination ?? defaultRequestLogDestination());
  const quietPaths = new Set(options.quietSuccessPaths);
  return (req, res, next, responseHeaders) => {
    // Fastify has already taken the id (FastifyAdapter genReqId); requestLoggingHook copies it to the raw request.
    const raw = req as LoggedIncomingMessage;
    const reqId = typeof raw.id === 'string' ? raw.id : requestIdFrom(req.headers[REQUEST_ID_HEADER]);
    const start = Date.now();
    const complete = () => {
      res.removeListener('finish', complete);
      res.removeListener('close', complete);
      const path = pathOf(req.url);
      const level = requestLogLevel(res.statusCode, { probe: isOperationalPath(path), quiet: quietPaths.has(path) });
      if (!root.isLevelEnabled(level)) return;
      // The root logger with the reqId first: the same line a child bound to it would write.
      root[level](
        { reqId, ...completionLine(req, res, requestLineIsDetailed(res.statusCode, options.level), responseHeaders), responseTime: Date.now() - start },
        // One message for every request; the level tells failures apart.
        res.writableEnded ? 'request completed' : 'request aborted',
      );
    };
    res.on('finish', complete);
    res.on('close', complete);
    // nestjs-pino's Logger finds the request's logger here (what its own middleware would bind).
    storage.run(new RequestLogContext(root, reqId) as unknown as Store, next);
  };
}

/**
 * The id of the request being handled (requestLogging's context), to pass on to the services
 * this one calls for it; undefined outside a request.
 */
export function currentRequestId(): string | undefined {
  const store: unknown = storage.getStore();
  if (store instanceof RequestLogContext) return store.reqId;
  const reqId: unknown = (store as Store | undefined)?.logger.bindings()['reqId'];
  return typeof reqId === 'string' ? reqId : undefined;
}

interface FastifyRequestView {
  method: string;
  url: string;
  host: string;
  ip: string;
  /**
   * The address resolved when the request arrived. Under trustProxy Fastify's `ip` is computed
   * from the socket on every read, and the completion line of a request whose socket is already
   * gone (an error answer on a closed connection) would throw there.
   */
  clientAddress?: string;
}

/**
 * Fastify's logger options for the gateway: the same line format; request lines hold the
 * method, path and peer only (no headers, so nothing to leak), plus the status.
 */
export function fastifyLoggerOptions(options: LoggingOptions): LoggerOptions & { stream?: DestinationStream } {
  const destination = options.destination ?? defaultLogDestination();
  return {
    ...baseLoggerOptions(options),
    ...(destination ? { stream: destination } : {}),
    serializers: {
      req: (request: FastifyRequestView) => ({
        method: request.method,
        url: pathOf(request.url),
        host: request.host,
        remoteAddress: request.clientAddress ?? request.ip,
      }),
      res: (reply: { statusCode: number }) => ({ statusCode: reply.statusCode }),
      err: pino.stdSerializers.err,
    },
  };
}
