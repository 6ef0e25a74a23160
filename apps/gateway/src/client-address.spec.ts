import { MemoryRateLimitStore, registerRateLimits } from '@platform/rate-limits';
import Fastify, { type FastifyInstance } from 'fastify';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGateway, type GatewayOptions } from './gateway';

// The client address behind the gateway: the gateway replaces X-Forwarded-For with the one
// address it resolved, the services believe it from the gateway only (TRUSTED_PROXIES, here
// `loopback` as in `npm start`), and per-address limits count the real client. Clients are
// told apart by their source address: 127.0.0.2, 127.0.0.3, ... are all this machine's.

interface Answer {
  status: number;
  body: { ip?: string; forwardedFor?: string };
}

/** A request from a chosen local source address (node's fetch cannot pick one). */
function send(url: string, options: { from: string; method?: string; headers?: Record<string, string> }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: options.method ?? 'GET', localAddress: options.from, headers: options.headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text ? (JSON.parse(text) as Answer['body']) : {} }));
    });
    request.once('error', reject);
    request.end();
  });
}

/** A stand-in service as the platform's are configured: trustProxy = its TRUSTED_PROXIES. */
async function startService(registrationsPerAddress: number): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify({ trustProxy: ['loopback'] });
  await registerRateLimits(app, {
    store: new MemoryRateLimitStore(),
    rules: [
      {
        name: 'registration:ip',
        method: 'POST',
        url: '/api/oauth/register',
        stage: 'onRequest',
        key: (_request, ip) => ip,
        max: registrationsPerAddress,
        windowSeconds: 3600,
        subject: 'client registration',
      },
    ],
  });
  const echo = async (request: { ip: string; headers: Record<string, unknown> }) => ({ ip: request.ip, forwardedFor: request.headers['x-forwarded-for'] });
  app.post('/api/oauth/register', echo);
  app.get('/api/whoami', echo);
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

async function startGateway(serviceUrl: string, trustProxy?: GatewayOptions['trustProxy']): Promise<{ app: FastifyInstance; origin: string }> {
  const app = await createGateway({ upstreams: { 'auth-server': serviceUrl, 'resource-server': serviceUrl }, trustProxy });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, origin: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

describe('the client address behind the gateway', () => {
  const REGISTRATIONS = 3;
  let service: { app: FastifyInstance; url: string };
  let edge: { app: FastifyInstance; origin: string };

  beforeAll(async () => {
    service = await startService(REGISTRATIONS);
    edge = await startGateway(service.url);
  });

  afterAll(async () => {
    await Promise.all([edge?.app.close(), service?.app.close()]);
  });

  const register = (from: string, headers: Record<string, string> = {}) =>
    send(`${edge.origin}/api/oauth/register`, { from, method: 'POST', headers });

  it('gives two clients with different addresses separate budgets, and a forged X-Forwarded-For buys nothing', async () => {
    for (let i = 0; i < REGISTRATIONS; i++) {
      const answer = await register('127.0.0.2');
      expect(answer).toEqual({ status: 200, body: { ip: '127.0.0.2', forwardedFor: '127.0.0.2' } });
    }
    expect((await register('127.0.0.2')).status).toBe(429);
    // The same client claiming to be someone else, alone or at either end of a chain.
    for (const forged of ['198.51.100.7', '198.51.100.7, 203.0.113.9', '127.0.0.3']) {
      expect((await register('127.0.0.2', { 'x-forwarded-for': forged })).status).toBe(429);
    }
    // Another client still has its whole budget.
    const other = await register('127.0.0.3', { 'x-forwarded-for': '127.0.0.2' });
    expect(other).toEqual({ status: 200, body: { ip: '127.0.0.3', forwardedFor: '127.0.0.3' } });
  });

  it('behind one proxy you run (GATEWAY_TRUST_PROXY=true): the address that proxy appended, as one entry', async () => {
    const behind = await startGateway(service.url, true);
    try {
      const answer = await send(`${behind.origin}/api/whoami`, { from: '127.0.0.4', headers: { 'x-forwarded-for': '198.51.100.7, 203.0.113.9' } });
      expect(answer.body).toEqual({ ip: '203.0.113.9', forwardedFor: '203.0.113.9' });
    } finally {
      await behind.app.close();
    }
  });

  it('behind listed proxies: their chain is walked from the right, anyone else is the client', async () => {
    const behind = await startGateway(service.url, ['127.0.0.5', '203.0.113.0/24']);
    try {
      const viaProxies = await send(`${behind.origin}/api/whoami`, { from: '127.0.0.5', headers: { 'x-forwarded-for': '6.6.6.6, 198.51.100.7, 203.0.113.9' } });
      expect(viaProxies.body).toEqual({ ip: '198.51.100.7', forwardedFor: '198.51.100.7' });
      const direct = await send(`${behind.origin}/api/whoami`, { from: '127.0.0.6', headers: { 'x-forwarded-for': '198.51.100.7' } });
      expect(direct.body).toEqual({ ip: '127.0.0.6', forwardedFor: '127.0.0.6' });
    } finally {
      await behind.app.close();
    }
  });

  it('behind one proxy, an error answer to a POST is logged with the client address and the gateway lives on', async () => {
    // The completion line of a POST answered 415 by the service used to read Fastify's `ip`
    // after the socket was gone, which throws under trustProxy and ended the process.
    const lines: string[] = [];
    const behind = await createGateway({
      upstreams: { 'auth-server': service.url, 'resource-server': service.url },
      trustProxy: true,
      logLevel: 'info',
      logDestination: { write: (chunk: string) => void lines.push(chunk) },
    });
    await behind.listen({ host: '127.0.0.1', port: 0 });
    try {
      const origin = `http://127.0.0.1:${(behind.server.address() as AddressInfo).port}`;
      for (let i = 0; i < 3; i++) {
        const answer = await fetch(`${origin}/api/oauth/register`, { method: 'POST', body: 'a=b', headers: { 'content-type': 'text/csv', 'x-forwarded-for': '203.0.113.9' } });
        expect(answer.status).toBe(415);
      }
      const completed = lines.map((line) => JSON.parse(line)).filter((line) => line.msg === 'request completed');
      expect(completed.map((line) => [line.req.method, line.req.remoteAddress, line.res.statusCode])).toEqual([
        ['POST', '203.0.113.9', 415],
        ['POST', '203.0.113.9', 415],
        ['POST', '203.0.113.9', 415],
      ]);
    } finally {
      await behind.close();
    }
  });
});
