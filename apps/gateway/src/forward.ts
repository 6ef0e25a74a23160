import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { type ServiceUpstreams, upstreamOf } from './upstreams';

/**
 * Hop-by-hop headers (RFC 9110 §7.6.1): a proxy "MUST remove any header fields listed in the
 * Connection header field, and also Connection itself" before forwarding; Keep-Alive,
 * Proxy-Connection, TE, Transfer-Encoding and Upgrade belong to one connection only. (Undici
 * refuses some of them outright.)
 */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** Deletes the hop-by-hop headers, and those the Connection header names, in place. */
export function stripHopByHop(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>): void {
  const connection = headers['connection'];
  if (typeof connection === 'string') {
    for (const name of connection.split(',')) {
      const trimmed = name.trim().toLowerCase();
      if (trimmed) delete headers[trimmed];
    }
  }
  for (const name of HOP_BY_HOP) if (name in headers) delete headers[name];
}

export interface ForwardRequest {
  method: string;
  /** Path and query exactly as the client sent them. */
  target: string;
  /** The headers to send (already rewritten; hop-by-hop ones are removed here). */
  headers: IncomingHttpHeaders;
  /** The request body: a stream, a string Fastify parsed, or none. */
  body: Readable | string | undefined;
  /** Set on the answer, whatever the service said (the gateway's request id). */
  requestId: string;
  /** Strict-Transport-Security for the answer when the service sent none (the origin is https). */
  strictTransportSecurity: string | undefined;
}

/** What happened when nothing could be answered from the service: the caller answers instead. */
export type ForwardFailure = (error: Error) => void;

/** A request goes to at most this many replicas before the gateway answers with the failure. */
const MAX_ATTEMPTS = 3;

/**
 * Nothing was sent: the connection was never made, the name has no address, or the replica's
 * pool was closed (it left the name) before the request was handed to it (undici's
 * BalancedPool may still pick a pool that is closing).
 */
const CONNECT_FAILURES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CLOSED']);
/** The connection failed before any byte of an answer: the request may have been sent, and even acted on. */
const CONNECTION_FAILURES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);
/**
 * RFC 9110 §9.2.2: a proxy "MUST NOT automatically retry non-idempotent requests". Of the
 * idempotent methods only the safe ones (§9.2.1) are sent again: a PUT or DELETE repeated gets
 * an answer about the state the first one made (a 404 after a delete), not the first answer.
 */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function codeOf(error: unknown): string | undefined {
  for (let current = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; current && depth < 5; depth++) {
    if (typeof current.code === 'string' && (CONNECT_FAILURES.has(current.code) || CONNECTION_FAILURES.has(current.code))) return current.code;
    current = current.cause as typeof current;
  }
  return undefined;
}

/** A body that can be sent again: none, a string, or a stream nobody has read from yet. */
function unsent(body: ForwardRequest['body']): boolean {
  return body === undefined || typeof body === 'string' || !body.readableDidRead;
}

/**
 * Whether a request whose attempt failed before any answer may go to another replica: when
 * nothing was sent (the connection was refused or never made), whatever the method; when the
 * connection broke after the request went out (a kept-alive connection the replica closed as it
 * stopped, say), only a safe method whose body can be sent again. Never once an answer began.
 */
export function mayRetry(error: unknown, method: string, body: ForwardRequest['body']): boolean {
  const code = codeOf(error);
  if (code === undefined || !unsent(body)) return false;
  return CONNECT_FAILURES.has(code) || SAFE_METHODS.has(method);
}

/**
 * Sends one request to a replica of the service and streams its answer straight into
 * `response`, with undici's dispatch handler (no intermediate Readable for the answer body, no
 * copy of the answer's headers into Fastify's reply). The status and headers are the
 * service's, hop-by-hop ones removed, x-request-id the gateway's. A failure before the answer
 * started is retried on another replica when that is safe (mayRetry), MAX_ATTEMPTS in all at
 * most; otherwise it goes to `onFailure` (the caller answers with a JSON error). After the
 * answer started, the client's connection is cut, since a half-sent answer cannot be turned
 * into another one.
 */
export function forward(service: ServiceUpstreams, request: ForwardRequest, response: ServerResponse, onFailure: ForwardFailure): void {
  stripHopByHop(request.headers);
  let controller: Dispatcher.DispatchController | undefined;
  let started = false;
  const tried: string[] = [];
  const onClientGone = () => {
    if (!response.writableFinished) controller?.abort(new Error('the client closed the connection'));
  };
  response.once('close', onClientGone);

  const fail = (error: Error) => {
    response.off('close', onClientGone);
    if (!started && !response.headersSent) onFailure(error);
    else response.destroy(error);
  };

  const attempt = (dispatcher: Dispatcher) => {
    const body = request.body;
    const options: Dispatcher.DispatchOptions = {
      method: request.method as Dispatcher.HttpMethod,
      path: request.target,
      headers: request.headers as Record<string, string | string[]>,
      body: body === undefined ? null : body,
    };
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(requestController) {
        controller = requestController;
        if (response.destroyed) requestController.abort(new Error('the client closed the connection'));
      },
      onResponseStart(_controller, statusCode, headers, statusMessage) {
        started = true;
        const outgoing: OutgoingHttpHeaders = headers as OutgoingHttpHeaders;
        stripHopByHop(outgoing as Record<string, string | string[] | undefined>);
        outgoing['x-request-id'] = request.requestId;
        if (request.strictTransportSecurity && outgoing['strict-transport-security'] === undefined) {
          outgoing['strict-transport-security'] = request.strictTransportSecurity;
        }
        // An answer that came before the whole request body was read leaves the connection
        // unusable for the next request: close it.
        if (!response.req.complete) outgoing['connection'] = 'close';
        response.writeHead(statusCode, statusMessage, outgoing);
      },
      onResponseData(dataController, chunk) {
        if (!response.write(chunk)) {
          dataController.pause();
          response.once('drain', () => dataController.resume());
        }
      },
      onResponseEnd() {
        response.off('close', onClientGone);
        response.end();
      },
      onResponseError(_controller, error) {
        const upstream = upstreamOf(options);
        if (upstream !== undefined) tried.push(upstream);
        const retry = !started && !response.headersSent && !response.destroyed && tried.length < MAX_ATTEMPTS && mayRetry(error, request.method, body);
        if (!retry) {
          fail(error);
          return;
        }
        nextReplica(service, tried, error).then(
          (next) => (next && !response.destroyed ? attempt(next) : fail(error)),
          () => fail(error),
        );
      },
    };
    dispatcher.dispatch(options, handler);
  };
  attempt(service.pool);
}

/**
 * Where a retry goes: a replica not tried yet. A refused connection means the list of replicas
 * may be stale (one has stopped): the name is asked again at once, and awaited when no untried
 * replica is left. A connection that broke after the request went out may be tried once more
 * on the same replica, on a new connection, when that replica is the only one.
 */
async function nextReplica(service: ServiceUpstreams, tried: readonly string[], error: unknown): Promise<Dispatcher | undefined> {
  const refused = CONNECT_FAILURES.has(codeOf(error) ?? '');
  const untried = () => service.upstreams().filter((upstream) => !tried.includes(upstream));
  const refreshed = refused ? service.refresh() : undefined;
  let candidates = untried();
  if (candidates.length === 0 && refreshed) {
    await refreshed;
    candidates = untried();
  }
  if (candidates.length === 0 && !refused && tried.length === 1) candidates = [tried[0]];
  const next = candidates[Math.floor(Math.random() * candidates.length)];
  return next === undefined ? undefined : service.replica(next);
}
