import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { Pool, type Dispatcher } from 'undici';

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

/**
 * One service's connection pool. Undici's Pool, not an Agent: every request goes to this one
 * origin, so the Agent's per-origin lookup is work for nothing. Connections are kept alive.
 */
export function createUpstreamPool(origin: string): Pool {
  return new Pool(origin, {
    // Enough for the services' own concurrency; beyond it requests queue here.
    connections: 128,
    // Pipelining stays off (1): a slow answer would hold up the ones queued behind it.
    pipelining: 1,
    keepAliveTimeout: 4_000,
  });
}

/**
 * Sends one request to the service and streams its answer straight into `response`, with
 * undici's dispatch handler (no intermediate Readable for the answer body, no copy of the
 * answer's headers into Fastify's reply). The status and headers are the service's, hop-by-hop
 * ones removed, x-request-id the gateway's. A failure before the answer started goes to
 * `onFailure` (the caller answers with a JSON error); after it started, the client's
 * connection is cut, since a half-sent answer cannot be turned into another one.
 */
export function forward(pool: Pool, request: ForwardRequest, response: ServerResponse, onFailure: ForwardFailure): void {
  stripHopByHop(request.headers);
  let controller: Dispatcher.DispatchController | undefined;
  let started = false;
  const onClientGone = () => {
    if (!response.writableFinished) controller?.abort(new Error('the client closed the connection'));
  };
  response.once('close', onClientGone);

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
      response.off('close', onClientGone);
      if (!started && !response.headersSent) onFailure(error);
      else response.destroy(error);
    },
  };

  const body = request.body;
  pool.dispatch(
    {
      method: request.method as Dispatcher.HttpMethod,
      path: request.target,
      headers: request.headers as Record<string, string | string[]>,
      body: body === undefined ? null : body,
    },
    handler,
  );
}
