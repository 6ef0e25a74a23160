import Fastify, { type FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';

export interface StubToken {
  scope: string;
  aud?: string;
  /** Seconds from now. */
  expiresIn?: number;
  schoolId?: string;
  /** A DPoP-bound token's key thumbprint: answered as token_type DPoP with cnf.jkt (RFC 9449 §6.2). */
  jkt?: string;
}

/**
 * A stand-in for the authorization server's RFC 7662 endpoint, so the cache and guard can be
 * observed call by call: it counts introspections and answers from a table the test controls.
 * (The real authorization server drives the same lib in the cross-service e2e tests.)
 */
export class IntrospectionStub {
  readonly tokens = new Map<string, StubToken>();
  calls = 0;
  /** While set, answers (decided on arrival) wait for it before they are sent. */
  hold?: Promise<void>;
  /** While set, every introspection is refused with 429 and this Retry-After (the caller's budget is spent). */
  refusing?: { retryAfter?: string };
  private app?: FastifyInstance;

  constructor(
    private readonly credentials: { id: string; secret: string },
    private readonly resource: string,
  ) {}

  async start(): Promise<string> {
    // A test that fails while an answer is held may leave a connection busy: close it anyway.
    const app = Fastify({ forceCloseConnections: true });
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) =>
      done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    app.post('/introspect', async (request, reply) => {
      this.calls++;
      const form = request.body as Record<string, string>;
      if (this.refusing) {
        if (this.refusing.retryAfter !== undefined) reply.header('retry-after', this.refusing.retryAfter);
        return reply.status(429).send({ error: 'too_many_requests', error_description: 'Too many requests; retry later' });
      }
      if (form['client_id'] !== this.credentials.id || form['client_secret'] !== this.credentials.secret) {
        return reply.status(401).send({ error: 'invalid_client' });
      }
      // Like the authorization server, which takes at most 4096 characters.
      if ((form['token'] ?? '').length > 4096) {
        return reply.status(400).send({ error: 'invalid_request', error_description: 'token is too long' });
      }
      const answer = this.answer(form['token'] ?? '');
      await this.hold;
      return answer;
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    this.app = app;
    return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/introspect`;
  }

  async stop(): Promise<void> {
    await this.app?.close();
  }

  private answer(value: string) {
    const token = this.tokens.get(value);
    if (!token) return { active: false };
    const now = Math.floor(Date.now() / 1000);
    return {
      active: true,
      scope: token.scope,
      client_id: 'client-1',
      sub: 'user-1',
      aud: token.aud ?? this.resource,
      iss: 'http://issuer.test',
      exp: now + (token.expiresIn ?? 3600),
      iat: now,
      token_type: token.jkt === undefined ? 'Bearer' : 'DPoP',
      ...(token.jkt === undefined ? {} : { cnf: { jkt: token.jkt } }),
      school_id: token.schoolId ?? 'demo-school',
    };
  }
}
