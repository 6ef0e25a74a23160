import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { addressBucket, validateTrustedProxies } from './client-ip';
import { MemoryRateLimitStore } from './memory-store';
import { oauthRateLimitRules } from './oauth-rules';
import { registerRateLimits, type RouteCheck } from './register-rate-limits';

const PATHS = { registration: '/register', token: '/token', introspection: '/introspect' };
const LIMITS = {
  registrationPerIp: { max: 2, windowSeconds: 60 },
  tokenPerIp: { max: 5, windowSeconds: 60 },
  introspectionPerCaller: { max: 2, windowSeconds: 30 },
};

/** A stand-in for the auth server's reading of client credentials (HTTP Basic, then the form). */
function clientIdOf(request: FastifyRequest): string | undefined {
  const authorization = request.headers.authorization;
  if (authorization?.startsWith('Basic ')) return Buffer.from(authorization.slice(6), 'base64').toString('utf8').split(':')[0];
  return (request.body as { client_id?: string } | undefined)?.client_id;
}

async function app(options: { trustedProxies?: string[]; enabled?: boolean; checks?: RouteCheck[] } = {}): Promise<FastifyInstance> {
  const fastify = Fastify({ trustProxy: options.trustedProxies ?? ['loopback'] });
  fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    const form: Record<string, string | string[]> = {};
    for (const [name, value] of new URLSearchParams(body as string)) {
      const previous = form[name];
      form[name] = previous === undefined ? value : ([] as string[]).concat(previous, value);
    }
    done(null, form);
  });
  await registerRateLimits(fastify, {
    store: new MemoryRateLimitStore(),
    rules: oauthRateLimitRules(LIMITS, PATHS, clientIdOf),
    checks: options.checks,
    enabled: options.enabled,
  });
  for (const path of Object.values(PATHS)) fastify.post(path, async () => ({ ok: true }));
  fastify.get('/free', async () => ({ ok: true }));
  return fastify;
}

const form = (fields: Record<string, string>) => ({
  'content-type': 'application/x-www-form-urlencoded',
  payload: new URLSearchParams(fields).toString(),
});

async function post(fastify: FastifyInstance, url: string, init: { fields?: Record<string, string>; headers?: Record<string, string>; remoteAddress?: string } = {}) {
  const body = form(init.fields ?? {});
  return fastify.inject({
    method: 'POST',
    url,
    headers: { 'content-type': body['content-type'], ...init.headers },
    payload: body.payload,
    remoteAddress: init.remoteAddress ?? '127.0.0.1',
  });
}

describe('registerRateLimits with the OAuth rules', () => {
  it('answers 429 too_many_requests with Retry-After once registration exceeds its per-address limit', async () => {
    const fastify = await app();
    expect((await post(fastify, '/register')).statusCode).toBe(200);
    expect((await post(fastify, '/register')).statusCode).toBe(200);
    const refused = await post(fastify, '/register');
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['content-type']).toContain('application/json');
    expect(refused.headers['cache-control']).toBe('no-store');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(refused.json()).toEqual({
      error: 'too_many_requests',
      error_description: expect.stringMatching(/^Too many requests to the registration endpoint; retry after \d+ seconds$/),
    });
    // Another address has its own budget.
    expect((await post(fastify, '/register', { remoteAddress: '10.1.1.1' })).statusCode).toBe(200);
    await fastify.close();
  });

  it('limits the token endpoint per address, whatever client_id it names: no budget of a client can be spent by naming it', async () => {
    const fastify = await app();
    for (let i = 0; i < 5; i++) expect((await post(fastify, '/token', { fields: { client_id: `c${i}` } })).statusCode).toBe(200);
    const refused = await post(fastify, '/token', { fields: { client_id: 'fresh' } });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ error_description: expect.stringMatching(/^Too many requests to the token endpoint;/) });
    // The same client_ids from another address: a budget of its own.
    for (let i = 0; i < 5; i++) expect((await post(fastify, '/token', { fields: { client_id: `c${i}` }, remoteAddress: '10.9.9.9' })).statusCode).toBe(200);
    await fastify.close();
  });

  it('limits introspection per named caller and address: naming the caller from elsewhere spends nothing of its budget', async () => {
    const fastify = await app();
    const caller = { client_id: 'resource-server', client_secret: 'x', token: 't' };
    // Someone else names the resource server's client_id from another address, past the limit.
    for (let i = 0; i < 3; i++) await post(fastify, '/introspect', { fields: caller, remoteAddress: '10.2.2.2' });
    expect((await post(fastify, '/introspect', { fields: caller, remoteAddress: '10.2.2.2' })).statusCode).toBe(429);
    expect((await post(fastify, '/introspect', { fields: caller })).statusCode).toBe(200);
    expect((await post(fastify, '/introspect', { fields: caller })).statusCode).toBe(200);
    expect((await post(fastify, '/introspect', { fields: caller })).statusCode).toBe(429);
    expect((await post(fastify, '/introspect', { fields: { ...caller, client_id: 'other' } })).statusCode).toBe(200);
    await fastify.close();
  });

  it('gives each replica of a caller its own introspection budget, even within one IPv6 /64', async () => {
    const fastify = await app();
    const caller = { client_id: 'resource-server', client_secret: 'x', token: 't' };
    for (let i = 0; i < 2; i++) expect((await post(fastify, '/introspect', { fields: caller, remoteAddress: 'fd00:10::1' })).statusCode).toBe(200);
    expect((await post(fastify, '/introspect', { fields: caller, remoteAddress: 'fd00:10::1' })).statusCode).toBe(429);
    // Another replica, another address of the same /64.
    expect((await post(fastify, '/introspect', { fields: caller, remoteAddress: 'fd00:10::2' })).statusCode).toBe(200);
    await fastify.close();
  });

  it('runs a route check before the rules of its stage: a request it refuses counts under no rule', async () => {
    const blocked = new Set(['10.3.3.3']);
    const check: RouteCheck = {
      method: 'POST',
      url: '/token',
      stage: 'onRequest',
      check: (_request, ip) => (blocked.has(ip) ? { rule: { name: 'test', max: 1, windowSeconds: 60, subject: 'the test check' }, retryAfterSeconds: 7 } : undefined),
    };
    const fastify = await app({ checks: [check] });
    for (let i = 0; i < 10; i++) {
      const refused = await post(fastify, '/token', { remoteAddress: '10.3.3.3' });
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['retry-after']).toBe('7');
      expect(refused.json()).toMatchObject({ error_description: 'Too many requests to the test check; retry after 7 seconds' });
    }
    blocked.clear();
    // Ten refused requests spent nothing of the address's five.
    for (let i = 0; i < 5; i++) expect((await post(fastify, '/token', { remoteAddress: '10.3.3.3' })).statusCode).toBe(200);
    await fastify.close();
  });

  it('cannot be dodged by spelling the path differently or adding a query', async () => {
    const fastify = await app();
    await post(fastify, '/register');
    await post(fastify, '/register?x=1');
    expect((await post(fastify, '/%72egister')).statusCode).toBe(429);
    await fastify.close();
  });

  it('leaves other routes alone', async () => {
    const fastify = await app();
    for (let i = 0; i < 20; i++) expect((await fastify.inject({ method: 'GET', url: '/free' })).statusCode).toBe(200);
    await fastify.close();
  });

  it('hooks only the limited routes: a route without a limit runs none of its code', async () => {
    const fastify = await app();
    await fastify.ready();
    // printRoutes lists each route's own hooks under it, up to the next route.
    const lines = fastify.printRoutes({ includeHooks: true, commonPrefix: false }).split('\n');
    const hooksOf = (route: string) => {
      const rest = lines.slice(lines.findIndex((line) => line.includes(route)) + 1);
      const end = rest.findIndex((line) => / \((GET|HEAD|POST)\)/.test(line));
      return rest.slice(0, end === -1 ? undefined : end).join('\n');
    };
    expect(hooksOf('/free (GET)')).not.toMatch(/onRequest|preHandler/);
    expect(hooksOf('/register (POST)')).toMatch(/\(onRequest\)/);
    expect(hooksOf('/register (POST)')).not.toMatch(/preHandler/);
    expect(hooksOf('/token (POST)')).toMatch(/\(onRequest\)/);
    expect(hooksOf('/token (POST)')).not.toMatch(/preHandler/);
    expect(hooksOf('/introspect (POST)')).toMatch(/\(preHandler\)/);
    await fastify.close();
  });

  it('registers nothing when switched off', async () => {
    const fastify = await app({ enabled: false });
    for (let i = 0; i < 5; i++) expect((await post(fastify, '/register')).statusCode).toBe(200);
    await fastify.close();
  });

  it('believes X-Forwarded-For only from a trusted proxy', async () => {
    const fastify = await app({ trustedProxies: ['10.0.0.1'] });
    // Through the trusted proxy: each forwarded address has its own budget.
    for (const client of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
      expect((await post(fastify, '/register', { remoteAddress: '10.0.0.1', headers: { 'x-forwarded-for': client } })).statusCode).toBe(200);
    }
    // Directly: a forged header does not give a fresh budget.
    const direct = (forged: string) => post(fastify, '/register', { remoteAddress: '198.51.100.7', headers: { 'x-forwarded-for': forged } });
    expect((await direct('1.1.1.1')).statusCode).toBe(200);
    expect((await direct('2.2.2.2')).statusCode).toBe(200);
    expect((await direct('3.3.3.3')).statusCode).toBe(429);
    await fastify.close();
  });
});

describe('the address a request is counted under (request.ip with trustProxy)', () => {
  let fastify: FastifyInstance;
  beforeAll(async () => {
    fastify = Fastify({ trustProxy: ['loopback', '10.0.0.0/8'] });
    fastify.get('/whoami', async (request) => ({ bucket: addressBucket(request.ip) }));
  });
  afterAll(() => fastify.close());

  it.each([
    ['a direct client, no header', '203.0.113.5', undefined, '203.0.113.5'],
    ['a direct client forging the header', '203.0.113.5', '1.2.3.4', '203.0.113.5'],
    ['the gateway on loopback', '127.0.0.1', '203.0.113.5', '203.0.113.5'],
    ['an IPv4-mapped loopback peer', '::ffff:127.0.0.1', '203.0.113.5', '203.0.113.5'],
    ['a client prepending a forged hop behind the gateway', '127.0.0.1', '1.2.3.4, 203.0.113.5', '203.0.113.5'],
    ['two trusted proxies', '127.0.0.1', '203.0.113.5, 10.1.2.3', '203.0.113.5'],
    ['an IPv6 client through the gateway', '::1', '2001:db8::1', '2001:db8:0:0::/64'],
    ['an IPv4-mapped direct client', '::ffff:203.0.113.9', undefined, '203.0.113.9'],
  ])('%s', async (_name, peer, header, expected) => {
    const response = await fastify.inject({ method: 'GET', url: '/whoami', remoteAddress: peer, headers: header === undefined ? {} : { 'x-forwarded-for': header } });
    expect(response.json()).toEqual({ bucket: expected });
  });

  it('refuses a malformed trusted proxy entry, naming it', () => {
    expect(() => validateTrustedProxies(['10.0.0.0/33'])).toThrow('10.0.0.0/33');
    expect(() => validateTrustedProxies(['gateway.local'])).toThrow('gateway.local');
    expect(() => validateTrustedProxies(['loopback', '10.0.0.0/8', '::1'])).not.toThrow();
  });
});

describe('addressBucket', () => {
  it.each([
    ['203.0.113.5', '203.0.113.5'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::9', '2001:db8:1:2::/64'],
    ['2001:0db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
  ])('%s is counted as %s', (address, bucket) => {
    expect(addressBucket(address)).toBe(bucket);
  });
});
