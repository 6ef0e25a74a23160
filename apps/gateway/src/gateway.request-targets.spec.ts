import Fastify, { type FastifyInstance } from 'fastify';
import { type AddressInfo, connect } from 'node:net';
import { createGateway } from './gateway';

/** A stand-in service that answers every request with what it received. */
async function startEcho(service: string): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify();
  app.all('/*', async (request) => ({ service, url: request.url, host: request.headers.host, forwardedHost: request.headers['x-forwarded-host'] }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

interface RawAnswer {
  status: number;
  /** The header fields, names in lower case. */
  headers: Record<string, string>;
  body: string;
}

/**
 * One request line written by hand on a socket of its own (no HTTP client sends these targets),
 * the answer read until the gateway closes the connection.
 */
function raw(port: number, requestLine: string, headers = 'Host: academy.example\r\n'): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`${requestLine}\r\n${headers}Connection: close\r\n\r\n`));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('close', () => {
      const split = answer.indexOf('\r\n\r\n');
      const head = answer.slice(0, split);
      const headers = Object.fromEntries(
        head.split('\r\n').slice(1).map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(answer)?.[1] ?? 0), headers, body: answer.slice(split + 4) });
    });
    socket.on('error', reject);
  });
}

describe('request targets that are not origin-form (RFC 9112 §3.2)', () => {
  let auth: { app: FastifyInstance; url: string };
  let resource: { app: FastifyInstance; url: string };
  let gateway: FastifyInstance;
  let port: number;

  beforeAll(async () => {
    [auth, resource] = await Promise.all([startEcho('auth'), startEcho('resource')]);
    gateway = await createGateway({ upstreams: { 'auth-server': auth.url, 'resource-server': resource.url }, publicOrigin: 'https://academy.example' });
    await gateway.listen({ host: '127.0.0.1', port: 0 });
    port = (gateway.server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await Promise.all([gateway?.close(), auth?.app.close(), resource?.app.close()]);
  });

  /** The gateway's refusal of a target: JSON invalid_request, not cached, with a minted request id. */
  const refusal = (status: number) => ({
    status,
    headers: expect.objectContaining({
      'content-type': expect.stringMatching(/^application\/json/),
      'cache-control': 'no-store',
      'x-request-id': expect.stringMatching(/^[0-9a-f-]{36}$/),
    }),
    body: expect.stringMatching(/^\{"error":"invalid_request","error_description":"[^"]+"\}$/),
  });
  /** A HEAD answer has a GET's headers and no body. */
  const headRefusal = (status: number) => ({ ...refusal(status), body: '' });

  it.each([
    ['GET *', 400],
    ['OPTIONS *', 400],
    ['HEAD *', 400],
    ['POST *', 400],
  ])('%s: %s invalid_request, not the 502 of a target undici refuses', async (start, status) => {
    expect(await raw(port, `${start} HTTP/1.1`)).toMatchObject(start.startsWith('HEAD ') ? headRefusal(status) : refusal(status));
  });

  it.each([['CONNECT academy.example:443 HTTP/1.1'], ['CONNECT 127.0.0.1:22 HTTP/1.1']])(
    '%s: 400 invalid_request, not a connection closed without an answer (the gateway is no tunnel)',
    async (requestLine) => {
      expect(await raw(port, requestLine)).toMatchObject({ ...refusal(400), headers: expect.objectContaining({ connection: 'close' }) });
    },
  );

  it('a CONNECT whose client keeps sending still gets its answer, and the connection ends', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('CONNECT academy.example:443 HTTP/1.1\r\nHost: academy.example:443\r\n\r\n\u0016\u0003\u0001 TLS hello'));
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString('latin1');
        socket.write('more bytes of a tunnel that is not there');
      });
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
  });

  it.each([
    ['/oauth/token', 'auth'],
    ['/.well-known/oauth-authorization-server', 'auth'],
    ['/api/v1/courses?limit=5', 'resource'],
  ])('absolute-form naming this origin, https://academy.example%s: routed by its path to the %s service, in origin-form, Host from the target', async (path, service) => {
    const answer = await raw(port, `GET https://academy.example${path} HTTP/1.1`, 'Host: something.else\r\n');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ service, url: path, host: 'academy.example', forwardedHost: 'academy.example' });
  });

  it('absolute-form with an empty path: forwarded as /', async () => {
    const answer = await raw(port, 'GET HTTPS://ACADEMY.EXAMPLE:443 HTTP/1.1', 'Host: academy.example:443\r\n');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ service: 'resource', url: '/' });
  });

  it("absolute-form naming the gateway's own paths: answered by the gateway, as in origin-form", async () => {
    expect((await raw(port, 'GET https://academy.example/healthz HTTP/1.1')).status).toBe(200);
    expect((await raw(port, 'GET https://academy.example/metrics HTTP/1.1')).status).toBe(404);
    expect(await raw(port, 'GET https://academy.example/./metrics HTTP/1.1')).toMatchObject(refusal(400));
  });

  it.each([
    ['another origin', 'GET https://evil.test/oauth/token HTTP/1.1', 421],
    ['this host over http (another origin)', 'GET http://academy.example/oauth/token HTTP/1.1', 421],
    ['another scheme', 'GET ftp://academy.example/x HTTP/1.1', 400],
    ['userinfo', 'GET https://user@academy.example/x HTTP/1.1', 400],
    ['the server-wide OPTIONS in absolute-form', 'OPTIONS https://academy.example HTTP/1.1', 400],
    ['an upper-case scheme undici would refuse', 'GET HTTPS://evil.test/x HTTP/1.1', 421],
  ])('absolute-form with %s: refused', async (_why, requestLine, status) => {
    expect(await raw(port, requestLine)).toMatchObject(refusal(status));
  });

  it('leaves origin-form requests as they were, with any Host', async () => {
    const answer = await raw(port, 'GET //double/slash?x=1 HTTP/1.1', 'Host: other.test\r\n');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ service: 'resource', url: '//double/slash?x=1', host: 'other.test', forwardedHost: 'other.test' });
  });

  it('logs a refused target as it was sent (never its query), with the status, and a refused CONNECT too', async () => {
    const output: string[] = [];
    const logged = await createGateway({
      upstreams: { 'auth-server': auth.url, 'resource-server': resource.url },
      publicOrigin: 'https://academy.example',
      logLevel: 'info',
      logDestination: { write: (chunk: string) => void output.push(chunk) },
    });
    await logged.listen({ host: '127.0.0.1', port: 0 });
    const loggedPort = (logged.server.address() as AddressInfo).port;
    try {
      await raw(loggedPort, 'GET https://evil.test/oauth/token?code=secret-code HTTP/1.1', 'Host: academy.example\r\nX-Request-Id: refused-1\r\n');
      await raw(loggedPort, 'CONNECT evil.test:443 HTTP/1.1', 'Host: evil.test:443\r\nX-Request-Id: refused-2\r\n');
    } finally {
      await logged.close();
    }
    const lines = output.map((line) => JSON.parse(line) as { reqId?: string; msg: string; req?: { method: string; url: string }; res?: { statusCode: number } });
    expect(lines.find((line) => line.reqId === 'refused-1')).toMatchObject({ msg: 'request completed', req: { method: 'GET', url: 'https://evil.test/oauth/token' }, res: { statusCode: 421 } });
    expect(lines.find((line) => line.reqId === 'refused-2')).toMatchObject({ msg: 'request completed', req: { method: 'CONNECT', url: 'evil.test:443' }, res: { statusCode: 400 } });
    expect(output.join('')).not.toContain('secret-code');
  });

  describe('without PUBLIC_BASE_URL', () => {
    let unconfigured: FastifyInstance;
    let unconfiguredPort: number;

    beforeAll(async () => {
      unconfigured = await createGateway({ upstreams: { 'auth-server': auth.url, 'resource-server': resource.url } });
      await unconfigured.listen({ host: '127.0.0.1', port: 0 });
      unconfiguredPort = (unconfigured.server.address() as AddressInfo).port;
    });

    afterAll(async () => {
      await unconfigured?.close();
    });

    it('takes absolute-form whose authority is the Host the client sent (RFC 9112 §3.2: it MUST be identical)', async () => {
      const answer = await raw(unconfiguredPort, 'GET http://platform.local:8080/oauth/token HTTP/1.1', 'Host: Platform.Local:8080\r\n');
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ service: 'auth', url: '/oauth/token', host: 'platform.local:8080' });
    });

    it('refuses absolute-form whose authority contradicts the Host', async () => {
      expect(await raw(unconfiguredPort, 'GET http://evil.test/oauth/token HTTP/1.1', 'Host: platform.local\r\n')).toMatchObject(refusal(400));
    });

    it('still refuses the asterisk-form and CONNECT', async () => {
      expect(await raw(unconfiguredPort, 'OPTIONS * HTTP/1.1')).toMatchObject(refusal(400));
      expect(await raw(unconfiguredPort, 'CONNECT platform.local:443 HTTP/1.1')).toMatchObject(refusal(400));
    });
  });
});
