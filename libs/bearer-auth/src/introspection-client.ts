import type { IntrospectionResponse } from '@platform/contracts';
import { currentRequestId, REQUEST_ID_HEADER } from '@platform/observability';
import { TemporarilyUnavailableError } from '@platform/oauth-errors';
import type { ResolvedBearerAuthOptions } from './options';

/** Calls the authorization server's RFC 7662 endpoint with this resource server's credentials. */
export class IntrospectionClient {
  private readonly body: (token: string) => string;

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
