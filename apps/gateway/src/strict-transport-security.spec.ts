import Fastify, { type FastifyInstance } from 'fastify';
import { type AddressInfo, connect } from 'node:net';
import { createGateway } from './gateway';
import { STRICT_TRANSPORT_SECURITY, strictTransportSecurityFor } from './strict-transport-security';

/** A stand-in service; /own-hsts answers with a Strict-Transport-Security of its own. */
async function startService(): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify();
  app.get('/own-hsts', async (_request, reply) => reply.header('Strict-Transport-Security', 'max-age=60').send({ ok: true }));
  app.all('/*', async () => ({ ok: true }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

async function closedPortUrl(): Promise<string> {
  const app = Fastify();
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  await app.close();
  return `http://127.0.0.1:${port}`;
}

/** The raw head of the answer to one hand-written request (CONNECT: no HTTP client sends it as such). */
function rawHead(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('close', () => resolve(answer.slice(0, answer.indexOf('\r\n\r\n'))));
    socket.on('error', reject);
  });
}

describe('strictTransportSecurityFor', () => {
  it('is the header value for an https public origin only (RFC 6797 §7.2)', () => {
    expect(strictTransportSecurityFor('https://academy.example')).toBe('max-age=63072000; includeSubDomains');
    expect(strictTransportSecurityFor('http://127.0.0.1:3000')).toBeUndefined();
    expect(strictTransportSecurityFor(undefined)).toBeUndefined();
  });
});

describe('Strict-Transport-Security on the gateway', () => {
  let service: { app: FastifyInstance; url: string };
  let down: string;

  beforeAll(async () => {
    [service, down] = await Promise.all([startService(), closedPortUrl()]);
  });

  afterAll(async () => {
    await service?.app.close();
  });

  /** Every kind of answer: the gateway's own, refusals, forwarded ones, and failures to forward. */
  async function answers(publicOrigin: string | undefined): Promise<Record<string, string | string[] | null | undefined>> {
    const gateway = await createGateway({
      upstreams: { 'auth-server': down, 'resource-server': service.url },
      bodyLimits: { 'auth-server': 100, 'resource-server': 100 },
      ...(publicOrigin ? { publicOrigin } : {}),
    });
    await gateway.listen({ host: '127.0.0.1', port: 0 });
    const port = (gateway.server.address() as AddressInfo).port;
    const origin = `http://127.0.0.1:${port}`;
    const header = async (path: string, init: RequestInit = {}) => (await fetch(`${origin}${path}`, init)).headers.get('strict-transport-security');
    try {
      const connectHead = await rawHead(port, 'CONNECT academy.example:443 HTTP/1.1\r\nHost: academy.example:443\r\n\r\n');
      return {
        'own answer (liveness)': await header('/healthz'),
        'own answer (404)': await header('/metrics'),
        'refused path (400)': await header('/%2e/metrics'),
        'body too large (413)': await header('/api/v1/courses', { method: 'POST', body: 'x'.repeat(200) }),
        'forwarded': await header('/api/v1/courses'),
        "forwarded, the service's own": await header('/own-hsts'),
        'service down (503)': await header('/oauth/token'),
        'CONNECT (400)': /\r\nstrict-transport-security: ([^\r]*)/i.exec(connectHead)?.[1] ?? null,
      };
    } finally {
      await gateway.close();
    }
  }

  it('is on every answer when the public origin is https, the service\'s own value kept when it sends one', async () => {
    expect(await answers('https://academy.example')).toEqual({
      'own answer (liveness)': STRICT_TRANSPORT_SECURITY,
      'own answer (404)': STRICT_TRANSPORT_SECURITY,
      'refused path (400)': STRICT_TRANSPORT_SECURITY,
      'body too large (413)': STRICT_TRANSPORT_SECURITY,
      'forwarded': STRICT_TRANSPORT_SECURITY,
      "forwarded, the service's own": 'max-age=60',
      'service down (503)': STRICT_TRANSPORT_SECURITY,
      'CONNECT (400)': STRICT_TRANSPORT_SECURITY,
    });
  });

  it.each([['http://127.0.0.1:3000'], [undefined]])('is on no answer of its own when the public origin is %s (RFC 6797 §7.2: not over plain HTTP)', async (publicOrigin) => {
    const seen = await answers(publicOrigin);
    expect(seen).toEqual({ ...Object.fromEntries(Object.keys(seen).map((kind) => [kind, null])), "forwarded, the service's own": 'max-age=60' });
  });
});
