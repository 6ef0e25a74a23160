import { storage } from 'nestjs-pino/storage';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino, { type Logger } from 'pino';
import { baseLoggerOptions, currentRequestId, requestLogging } from './http-logging';

type Line = Record<string, unknown> & { level: string; msg: string; reqId?: string };

/** The request's logger, as the handlers inside a request reach it (nestjs-pino's Logger reads the same store). */
const requestLogger = (): Logger => (storage.getStore() as { logger: Logger }).logger;

/** A pino destination the test reads back, one parsed JSON object per line. */
function collector() {
  const lines: Line[] = [];
  return { lines, stream: { write: (chunk: string) => void lines.push(JSON.parse(chunk) as Line) } };
}

describe('request logs of a service (requestLogging)', () => {
  const { lines, stream } = collector();
  let server: Server;
  let origin: string;

  beforeAll(async () => {
    const middleware = requestLogging({ service: 'test-service', level: 'debug', destination: stream });
    server = createServer((req, res) =>
      middleware(req, res, () => {
        requestLogger().info('handling');
        if (req.url?.startsWith('/redirect')) {
          res.setHeader('set-cookie', 'sid=cookie-value-123; HttpOnly');
          res.writeHead(302, { location: 'http://127.0.0.1:8765/callback?code=the-code-456&state=the-state' }).end();
        } else if (req.url === '/boom') {
          res.writeHead(503).end();
        } else {
          res.writeHead(200).end('ok');
        }
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const completed = (id: string) => lines.find((line) => line.reqId === id && line.msg === 'request completed') as Line & {
    req: { url: string; headers: Record<string, string> };
    res: { headers: Record<string, string> };
  };

  it('tags every line of a request with the incoming x-request-id', async () => {
    await fetch(`${origin}/api/v1/courses`, { headers: { 'x-request-id': 'trace-abc' } });
    const own = lines.filter((line) => line.reqId === 'trace-abc');
    expect(own.map((line) => line.msg)).toEqual(['handling', 'request completed']);
    expect(own[0]).not.toHaveProperty('req');
    expect(own[1]).toMatchObject({ level: 'info', service: 'test-service', req: { method: 'GET', url: '/api/v1/courses' } });
  });

  it('redacts credentials and never logs the query or the redirect’s code', async () => {
    await fetch(`${origin}/redirect?code_challenge=challenge-789&state=state-000`, {
      redirect: 'manual',
      headers: { 'x-request-id': 'trace-redirect', authorization: 'Bearer token-value-111', cookie: 'sid=cookie-value-222' },
    });
    const line = completed('trace-redirect');
    expect(line.req.url).toBe('/redirect');
    expect(line.req.headers['authorization']).toBe('[Redacted]');
    expect(line.req.headers['cookie']).toBe('[Redacted]');
    expect(line.res.headers['set-cookie']).toBe('[Redacted]');
    expect(line.res.headers['location']).toBe('http://127.0.0.1:8765/callback?[Redacted]');
    const everything = JSON.stringify(lines);
    for (const secret of ['token-value-111', 'cookie-value-', 'the-code-456', 'the-state', 'challenge-789', 'state-000']) {
      expect(everything).not.toContain(secret);
    }
  });

  it('logs probes at debug and server errors at error', async () => {
    await fetch(`${origin}/healthz`, { headers: { 'x-request-id': 'trace-probe' } });
    await fetch(`${origin}/boom`, { headers: { 'x-request-id': 'trace-boom' } });
    expect(completed('trace-probe').level).toBe('debug');
    expect(completed('trace-boom')).toMatchObject({ level: 'error', res: { statusCode: 503 } });
    expect(completed('trace-boom')).not.toHaveProperty('err');
  });

  it('mints a request id when the caller sent none', async () => {
    const before = lines.length;
    await fetch(`${origin}/api/v1/courses`);
    expect(lines.slice(before).at(-1)?.reqId).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('request logs at info', () => {
  const { lines, stream } = collector();
  let server: Server;
  let origin: string;

  beforeAll(async () => {
    const middleware = requestLogging({ service: 'test-service', level: 'info', destination: stream, quietSuccessPaths: ['/quiet'] });
    server = createServer((req, res) =>
      middleware(req, res, () => {
        if (req.url?.startsWith('/quiet')) {
          res.writeHead(req.headers.authorization ? 200 : 401).end(currentRequestId());
        } else if (req.url?.startsWith('/denied')) {
          requestLogger().warn('refused');
          res.setHeader('www-authenticate', 'Bearer error="invalid_token"');
          res.writeHead(401).end();
        } else if (req.url === '/boom') {
          res.writeHead(500).end();
        } else {
          res.setHeader('set-cookie', 'sid=cookie-value-333');
          res.writeHead(200).end('ok');
        }
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const completed = (id: string) => lines.find((line) => line.reqId === id && line.msg === 'request completed');

  it('give a successful request a short line: id, method, path, status, duration, no headers', async () => {
    await fetch(`${origin}/api/v1/courses?limit=5&secret=query-value-444`, {
      headers: { 'x-request-id': 'short-ok', authorization: 'Bearer token-value-555' },
    });
    const line = completed('short-ok');
    expect(line).toEqual({
      level: 'info',
      time: expect.any(String),
      service: 'test-service',
      pid: process.pid,
      hostname: expect.any(String),
      reqId: 'short-ok',
      req: { method: 'GET', url: '/api/v1/courses' },
      res: { statusCode: 200 },
      responseTime: expect.any(Number),
      msg: 'request completed',
    });
    expect(JSON.stringify(lines)).not.toMatch(/token-value-555|query-value-444|cookie-value-333/);
  });

  it('keep the request id, the redacted headers and the peer on every refused or failed request', async () => {
    await fetch(`${origin}/denied?token=query-value-666`, {
      headers: { 'x-request-id': 'detail-401', authorization: 'Bearer token-value-777', cookie: 'sid=cookie-value-888' },
    });
    await fetch(`${origin}/boom`, { headers: { 'x-request-id': 'detail-500' } });
    expect(lines.filter((line) => line.reqId === 'detail-401').map((line) => line.msg)).toEqual(['refused', 'request completed']);
    expect(completed('detail-401')).toMatchObject({
      level: 'info',
      req: { method: 'GET', url: '/denied', headers: { authorization: '[Redacted]', cookie: '[Redacted]' }, remoteAddress: '127.0.0.1' },
      res: { statusCode: 401, headers: { 'www-authenticate': 'Bearer error="invalid_token"' } },
    });
    expect(completed('detail-500')).toMatchObject({ level: 'error', req: { url: '/boom', headers: expect.any(Object) }, res: { statusCode: 500 } });
    expect(completed('detail-500')).not.toHaveProperty('err');
    expect(JSON.stringify(lines)).not.toMatch(/token-value-777|query-value-666|cookie-value-888/);
  });

  it('leave out the successful answers of a quiet path, not its refusals, and tell handlers the request id', async () => {
    const ok = await fetch(`${origin}/quiet?x=1`, { headers: { 'x-request-id': 'quiet-ok', authorization: 'Basic eDp5' } });
    const refused = await fetch(`${origin}/quiet`, { headers: { 'x-request-id': 'quiet-401' } });
    expect([ok.status, await ok.text(), refused.status]).toEqual([200, 'quiet-ok', 401]);
    await fetch(`${origin}/api/v1/courses`, { headers: { 'x-request-id': 'after-quiet' } });
    // A later request's line is written, so the quiet success would have been by now.
    expect(completed('after-quiet')).toMatchObject({ level: 'info', req: { method: 'GET', url: '/api/v1/courses' }, res: { statusCode: 200 } });
    expect(completed('quiet-ok')).toBeUndefined();
    expect(completed('quiet-401')).toMatchObject({ level: 'info', req: { url: '/quiet' }, res: { statusCode: 401 } });
  });

  it('have no request id outside a request', () => {
    expect(currentRequestId()).toBeUndefined();
  });
});

describe('baseLoggerOptions', () => {
  it('redacts credentials in any line that carries headers', () => {
    const { lines, stream } = collector();
    const logger = pino(baseLoggerOptions({ service: 's', level: 'info' }), stream);
    logger.info({ req: { headers: { authorization: 'Basic c2VjcmV0', accept: '*/*' } } }, 'x');
    expect(lines[0]).toMatchObject({ level: 'info', service: 's', req: { headers: { authorization: '[Redacted]', accept: '*/*' } } });
    expect(typeof lines[0]['time']).toBe('string');
  });
});
