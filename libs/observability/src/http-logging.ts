import type { IncomingMessage, ServerResponse } from 'node:http';
import { hostname } from 'node:os';
import type { Params } from 'nestjs-pino';
import pino, { type DestinationStream, type Level, type LoggerOptions } from 'pino';
import type { Options as PinoHttpOptions } from 'pino-http';
import { defaultLogDestination } from './log-format';
import type { LogLevel } from './operations-config';
import { isOperationalPath } from './operational-paths';
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

/** Probes at debug (they come every few seconds), failures at error, everything else at info. */
export function requestLogLevel(statusCode: number, { probe, error }: { probe: boolean; error?: unknown }): Level {
  if (probe) return 'debug';
  if (error || statusCode >= 500) return 'error';
  return 'info';
}

const SYNTHETIC_ERROR = /^failed with status code \d+$/;

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
 * headers cost ~30 µs of CPU on every request (issue 12); a redirect keeps its (censored)
 * Location, a failure everything there is to see.
 */
export function requestLineIsDetailed(statusCode: number, level: LogLevel, error?: unknown): boolean {
  return statusCode >= 300 || error !== undefined || level === 'debug' || level === 'trace';
}

function completionLine(req: IncomingMessage, res: ServerResponse, detailed: boolean) {
  if (!detailed) return { req: new LoggedRequest(req.method, pathOf(req.url)), res: new LoggedResponse(res.statusCode) };
  return {
    req: new LoggedRequest(req.method, pathOf(req.url), censoredHeaders('req', req.headers), req.socket?.remoteAddress),
    res: new LoggedResponse(res.statusCode, censoredHeaders('res', res.getHeaders())),
  };
}

/**
 * pino-http binds the raw request to a child logger at the start of every request (its "full
 * request logger"); with quietReqLogger and quietResLogger nothing is written through that
 * child, so it gets the cheapest form. Completion lines carry a LoggedRequest, kept as is.
 */
function serializeRequest(value: IncomingMessage | LoggedRequest): LoggedRequest {
  return value instanceof LoggedRequest ? value : new LoggedRequest(value.method, pathOf(value.url));
}

function serializeResponse(value: ServerResponse | LoggedResponse): LoggedResponse {
  return value instanceof LoggedResponse ? value : new LoggedResponse(value.statusCode);
}

/**
 * nestjs-pino's parameters for a NestJS service on Fastify: pino-http logs one line per
 * request when it completes, and every line logged while handling it carries its `reqId`,
 * which is the incoming x-request-id (the gateway sets one on every request). What a
 * completion line holds: requestLineIsDetailed.
 *
 * nestjs-pino keeps one pino-http instance per process, made from the first parameters it
 * sees: one service per process in production; tests that start two apps in one file share it.
 */
export function nestLoggerParams(options: LoggingOptions): Params {
  // No pino redaction on these lines: a `req` or `res` can only reach them through the
  // serializers below, and only a completion line's LoggedRequest/LoggedResponse holds headers,
  // censored when copied. pino's redaction cost ~4 µs of CPU on every line and every child.
  const { redact: _redact, ...base } = baseLoggerOptions(options);
  const pinoHttp: PinoHttpOptions<IncomingMessage, ServerResponse> = {
    ...base,
    // Fastify has already taken the id (FastifyAdapter genReqId) and middie copied it to the raw request.
    genReqId: (req) => (req as { id?: string }).id ?? requestIdFrom(req.headers[REQUEST_ID_HEADER]),
    // Lines inside a request, and its completion line, are written by a child that binds only
    // reqId; the completion line adds its own req and res (completionLine).
    quietReqLogger: true,
    quietResLogger: true,
    // Our serializers get the raw request and response (no std-serializers copy first).
    wrapSerializers: false,
    customLogLevel: (req, res, error) =>
      requestLogLevel(res.statusCode, { probe: isOperationalPath(pathOf(req.url)), error }),
    customSuccessObject: (req, res, value: Record<string, unknown>) => ({
      ...completionLine(req, res, requestLineIsDetailed(res.statusCode, options.level)),
      responseTime: value['responseTime'],
    }),
    // One message for every request; the level tells failures apart.
    customErrorMessage: () => 'request completed',
    // pino-http invents an Error (with a stack of its own code) for every 5xx; the real cause
    // is logged where it happened, on a line with the same reqId.
    customErrorObject: (req, res, error, value: Record<string, unknown>) => {
      const { err, res: _raw, ...rest } = value;
      return {
        ...completionLine(req, res, true),
        ...rest,
        ...(SYNTHETIC_ERROR.test(error.message) ? {} : { err }),
      };
    },
    serializers: { req: serializeRequest, res: serializeResponse, err: pino.stdSerializers.err },
  };
  const destination = options.destination ?? defaultLogDestination();
  return { pinoHttp: destination ? [pinoHttp, destination] : pinoHttp };
}

interface FastifyRequestView {
  method: string;
  url: string;
  host: string;
  ip: string;
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
        remoteAddress: request.ip,
      }),
      res: (reply: { statusCode: number }) => ({ statusCode: reply.statusCode }),
      err: pino.stdSerializers.err,
    },
  };
}
