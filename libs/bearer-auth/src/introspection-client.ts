import type { IntrospectionResponse } from '@platform/contracts';
import { currentRequestId, REQUEST_ID_HEADER } from '@platform/logging';
import { TemporarilyUnavailableError } from '@platform/oauth-errors';
import type { ResolvedBearerAuthOptions } from './options';

/** The longest a refused budget holds introspection off (and the Retry-After passed on), in seconds. */
const MAX_RETRY_AFTER_SECONDS = 60;

/** Calls the authorization server's RFC 7662 endpoint with this resource server's credentials. */
export class IntrospectionClient {
  private readonly body: (token: string) => string;
  /** While the authorization server refuses this client's budget (429): until when (ms), no call is made. */
  private refusedUntil = 0;

  constructor(private readonly options: ResolvedBearerAuthOptions) {
    const credentials = new URLSearchParams({ client_id: options.clientId, client_secret: options.clientSecret });
    this.body = (token) => `token=${encodeURIComponent(token)}&token_type_hint=access_token&${credentials}`;
  }

  /**
   * Throws TemporarilyUnavailableError when the authorization server cannot answer. The call
   * carries the id of the request it is made for (x-request-id): the authorization server logs
   * a successful introspection at debug only, and its refusals under that id.
   */
  async introspect(token: string): Promise<IntrospectionResponse> {
    const refusedFor = Math.ceil((this.refusedUntil - Date.now()) / 1000);
    if (refusedFor > 0) throw rateLimited(refusedFor, 'introspection budget refused; not asking again yet');
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    const requestId = currentRequestId();
    if (requestId !== undefined) headers[REQUEST_ID_HEADER] = requestId;
    let response: Response;
    try {
      response = await fetch(this.options.introspectionEndpoint, {
        method: 'POST',
        headers,
        body: this.body(token),
        signal: AbortSignal.timeout(this.options.introspectionTimeoutMs),
      });
    } catch (error) {
      throw unavailable(`introspection request failed: ${(error as Error).message}`);
    }
    if (response.status === 429) {
      // The budget of this client (every resource-server replica shares it) is spent: the token
      // may well be valid, so never invalid_token; the caller may retry when the authorization
      // server says, and no doomed call is made until then.
      await response.body?.cancel();
      const seconds = retryAfterSeconds(response.headers.get('retry-after'));
      this.refusedUntil = Date.now() + seconds * 1000;
      throw rateLimited(seconds, `introspection answered 429 (Retry-After ${response.headers.get('retry-after') ?? 'absent'})`);
    }
    if (response.status !== 200) {
      // 401 here means our own credentials are wrong: an operator problem, not the caller's.
      await response.body?.cancel();
      throw unavailable(`introspection answered ${response.status}`);
    }
    try {
      const answer = (await response.json()) as IntrospectionResponse;
      if (typeof answer?.active !== 'boolean') throw new Error('no boolean "active" member');
      return answer;
    } catch (error) {
      throw unavailable(`introspection answer unreadable: ${(error as Error).message}`);
    }
  }
}

function unavailable(detail: string): TemporarilyUnavailableError {
  return new TemporarilyUnavailableError('The authorization server is unavailable; retry shortly', detail);
}

/** 503 with Retry-After (RFC 9110 §15.6.4: the server may send it to say how long the client ought to wait). */
function rateLimited(seconds: number, detail: string): TemporarilyUnavailableError {
  return new TemporarilyUnavailableError('Tokens cannot be checked right now; retry shortly', detail).withHeader('retry-after', String(seconds));
}

/**
 * Retry-After (RFC 9110 §10.2.3): delay-seconds or an HTTP-date, held to 1..60 s; 1 s when
 * absent or unreadable.
 */
export function retryAfterSeconds(value: string | null, now = Date.now()): number {
  const text = value?.trim() ?? '';
  const seconds = /^\d+$/.test(text) ? Number(text) : Math.ceil((Date.parse(text) - now) / 1000);
  return Number.isFinite(seconds) ? Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, seconds)) : 1;
}
