import { request } from 'node:https';
import { checkPeerOnConnect, type ConnectionPolicy, guardedRequestOptions, isSpecialUseLiteral, SpecialUseAddressError } from './guarded-connection';

export interface OutboundLimits extends ConnectionPolicy {
  /** The whole exchange: connection, TLS, request, response headers and the part of the body read. */
  timeoutMs: number;
  /** At most this much of the answer is read (and thrown away); the connection is then closed. */
  maxResponseBytes: number;
}

/** What came back: the status and headers (the body is read up to the limit and discarded). */
export interface OutboundAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
}

export type OutboundProblem = 'special-use-address' | 'timeout' | 'unreachable' | 'not-https';

/** The request got no answer; `problem` says why, `message` is for the operator and the owner. */
export class OutboundError extends Error {
  constructor(
    readonly problem: OutboundProblem,
    message: string,
  ) {
    super(message);
  }
}

/**
 * One POST over https to a destination a caller chose (a webhook endpoint): only https, never to
 * a special-use address (checked on the address connected to), no redirect followed (Node's
 * https never follows one: a 3xx is an answer like any other), the whole exchange bounded by
 * `timeoutMs`, and at most `maxResponseBytes` of the answer read before the connection is cut.
 * Resolves with any HTTP answer; rejects with an OutboundError when none came.
 */
export function postOutbound(url: URL, payload: { headers: Record<string, string>; body: string }, limits: OutboundLimits): Promise<OutboundAnswer> {
  if (url.protocol !== 'https:') return Promise.reject(new OutboundError('not-https', 'only https destinations are allowed'));
  if (isSpecialUseLiteral(url, limits)) return Promise.reject(new OutboundError('special-use-address', `${url.hostname} is a special-use address`));
  const body = Buffer.from(payload.body, 'utf8');
  return new Promise<OutboundAnswer>((resolve, reject) => {
    let settled = false;
    // Set once the status line and headers are in: the answer, whatever the body then does.
    let answered: OutboundAnswer | undefined;
    const finish = (error: OutboundError | null, answer?: OutboundAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      if (error) reject(error);
      else resolve(answer as OutboundAnswer);
    };
    const req = request(
      url,
      { method: 'POST', headers: { ...payload.headers, 'content-length': String(body.length) }, ...guardedRequestOptions(limits) },
      (res) => {
        const answer = { status: res.statusCode ?? 0, headers: res.headers };
        answered = answer;
        let received = 0;
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received >= limits.maxResponseBytes) finish(null, answer);
        });
        res.on('end', () => finish(null, answer));
        res.on('error', () => finish(null, answer));
      },
    );
    checkPeerOnConnect(req, limits, (peer) => finish(new OutboundError('special-use-address', `connected to a special-use address (${peer ?? 'unknown'})`)));
    req.on('error', (error: Error & { code?: string }) => {
      if (error instanceof SpecialUseAddressError) return finish(new OutboundError('special-use-address', error.message));
      finish(new OutboundError('unreachable', `${error.code ?? 'error'}: ${error.message}`.slice(0, 300)));
    });
    const timer = setTimeout(
      () => (answered ? finish(null, answered) : finish(new OutboundError('timeout', `no answer within ${limits.timeoutMs} ms`))),
      limits.timeoutMs,
    );
    req.end(body);
  });
}
