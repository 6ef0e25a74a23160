import type { IncomingMessage, ServerResponse } from 'node:http';
import { hostname } from 'node:os';
import type { Params } from 'nestjs-pino';
import pino, { type DestinationStream, type Level, type LoggerOptions } from 'pino';
import type { Options as PinoHttpOptions } from 'pino-http';
import { defaultLogDestination } from './log-format';
import type { LogLevel } from './operations-config';
import { isOperationalPath } from './operational-paths';
import { censor, pathOf, REDACT_PATHS } from './redaction';
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

interface SerializedRequest {
  id?: unknown;
  method?: string;
  url?: string;
  headers?: Record<string, unknown>;
  remoteAddress?: string;
}

interface SerializedResponse {
  statusCode?: number;
  headers?: Record<string, unknown>;
}

/** Method, path (never the query), headers (redacted), peer. Never a body. */
function serializeRequest(req: SerializedRequest): SerializedRequest {
  return {
    id: req.id,
    method: req.method,
    url: pathOf(req.url),
    // A copy: redaction must not touch the live request's headers.
    headers: { ...req.headers },
    remoteAddress: req.remoteAddress,
  };
}

function serializeResponse(res: SerializedResponse): SerializedResponse {
  return { statusCode: res.statusCode, headers: { ...res.headers } };
}

/**
 * nestjs-pino's parameters for a NestJS service on Fastify: pino-http logs one line per
 * request when it completes, and every line logged while handling it carries its `reqId`,
 * which is the incoming x-request-id (the gateway sets one on every request).
 *
 * nestjs-pino keeps one pino-http instance per process, made from the first parameters it
 * sees: one service per process in production; tests that start two apps in one file share it.
 */
export function nestLoggerParams(options: LoggingOptions): Params {
  const pinoHttp: PinoHttpOptions<IncomingMessage, ServerResponse> = {
    ...baseLoggerOptions(options),
    // Fastify has already taken the id (FastifyAdapter genReqId) and middie copied it to the raw request.
    genReqId: (req) => (req as { id?: string }).id ?? requestIdFrom(req.headers[REQUEST_ID_HEADER]),
    // Lines inside a request carry only reqId, not the whole request again.
    quietReqLogger: true,
    customLogLevel: (req, res, error) =>
      requestLogLevel(res.statusCode, { probe: isOperationalPath(pathOf(req.url)), error }),
    // One message for every request; the level tells failures apart.
    customErrorMessage: () => 'request completed',
    // pino-http invents an Error (with a stack of its own code) for every 5xx; the real cause
    // is logged where it happened, on a line with the same reqId.
    customErrorObject: (_req, _res, error, value: Record<string, unknown>) => {
      if (!SYNTHETIC_ERROR.test(error.message)) return value;
      const { err: _synthetic, ...rest } = value;
      return rest;
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
