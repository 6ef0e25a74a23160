import { OAUTH_PATHS } from '@platform/contracts';
import Fastify, { type FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';

/**
 * Test helper, not served by the app: the two things the resource server asks the
 * authorization server for, its /healthz (readiness) and RFC 7662 introspection, answered
 * from a table the test controls. Introspection can be held open to stand for a slow call.
 */
export class AuthServerStub {
  readonly tokens = new Map<string, { scope: string; schoolId?: string }>();
  healthy = true;
  introspections = 0;
  /** The x-request-id of each introspection call, in order. */
  readonly introspectionRequestIds: (string | undefined)[] = [];
  origin = '';
  private held?: Promise<void>;
  private arrived?: () => void;
  private app?: FastifyInstance;

  async start(): Promise<string> {
    const app = Fastify({ forceCloseConnections: true });
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) =>
      done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    app.get('/healthz', async (_request, reply) => reply.status(this.healthy ? 200 : 503).send({ status: this.healthy ? 'ok' : 'error' }));
    app.post(OAUTH_PATHS.introspection, async (request) => {
      this.introspections++;
      this.introspectionRequestIds.push(request.headers['x-request-id'] as string | undefined);
      this.arrived?.();
      await this.held;
      const token = this.tokens.get((request.body as Record<string, string>)['token'] ?? '');
      if (!token) return { active: false };
      const now = Math.floor(Date.now() / 1000);
      return {
        active: true,
        token_type: 'Bearer',
        scope: token.scope,
        client_id: 'client-1',
        sub: 'user-1',
        aud: this.origin,
        iss: this.origin,
        exp: now + 3600,
        iat: now,
        school_id: token.schoolId ?? 'demo-school',
      };
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    this.app = app;
    this.origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    return this.origin;
  }

  /** Introspections wait until `release()`; `arrived` resolves when the first one is waiting. */
  hold(): { arrived: Promise<void>; release: () => void } {
    let release = () => undefined as void;
    this.held = new Promise<void>((resolve) => (release = resolve));
    const arrived = new Promise<void>((resolve) => (this.arrived = resolve));
    return { arrived, release };
  }

  async stop(): Promise<void> {
    await this.app?.close();
  }
}
