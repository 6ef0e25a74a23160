import { ANONYMOUS, type TokenPrincipal } from '@platform/bearer-auth';
import { TooManyRequestsError } from '@platform/oauth-errors';
import { MemoryRateLimitStore, windowCounterFor } from '@platform/rate-limits';
import { loadResourceConfig } from '../config/resource-config';
import { mcpLimitHook, writesIn } from './mcp-limits';
import { ResourceRequestLimits } from './resource-limits';

const LIMITS = { enabled: true, writesPerUser: { max: 3, windowSeconds: 60 }, anonymousPerIp: { max: 4, windowSeconds: 60 } };
const user = (userId: string): TokenPrincipal => ({ kind: 'token', userId, schoolId: 'demo-school', clientId: 'agent', scopes: ['courses:write'], expiresAt: 0 });

function limits(config = LIMITS) {
  return new ResourceRequestLimits(config, windowCounterFor(new MemoryRateLimitStore()));
}

const admit = (target: ResourceRequestLimits, method: string, principal: TokenPrincipal | typeof ANONYMOUS, ip = '198.51.100.7') => {
  try {
    target.admit({ method, ip }, principal);
    return 'admitted';
  } catch (error) {
    expect(error).toBeInstanceOf(TooManyRequestsError);
    return (error as TooManyRequestsError).description;
  }
};

describe('ResourceRequestLimits (the bearer guard’s admission)', () => {
  it('counts writes per user, once the token is validated: another user, or the same user’s reads, are not affected', () => {
    const target = limits();
    for (const method of ['POST', 'PATCH', 'DELETE']) expect(admit(target, method, user('ada'))).toBe('admitted');
    expect(admit(target, 'PUT', user('ada'), '203.0.113.1')).toMatch(/^Too many writes by this user; retry after \d+ seconds$/);
    expect(admit(target, 'POST', user('grace'))).toBe('admitted');
    for (let i = 0; i < 10; i++) expect(admit(target, 'GET', user('ada'))).toBe('admitted');
  });

  it('counts requests without a token per address (IPv6 per /64), whatever their method', () => {
    const target = limits();
    for (let i = 0; i < 4; i++) expect(admit(target, 'GET', ANONYMOUS, `2001:db8:1:2::${i}`)).toBe('admitted');
    expect(admit(target, 'HEAD', ANONYMOUS, '2001:db8:1:2::ff')).toMatch(/^Too many requests without an access token from this address; retry after/);
    expect(admit(target, 'GET', ANONYMOUS, '2001:db8:1:3::1')).toBe('admitted');
    // A token's reads from the same address: not counted.
    expect(admit(target, 'GET', user('ada'), '2001:db8:1:2::5')).toBe('admitted');
  });

  it('RATE_LIMITS_ENABLED=false: nothing is counted', () => {
    const target = limits({ ...LIMITS, enabled: false });
    for (let i = 0; i < 10; i++) expect(admit(target, 'POST', user('ada'))).toBe('admitted');
    for (let i = 0; i < 10; i++) expect(admit(target, 'GET', ANONYMOUS)).toBe('admitted');
  });

  it('reads its limits from RATE_LIMITS_ENABLED and RATE_LIMIT_* (defaults: 600 writes per user and 6,000 anonymous requests per address a minute)', () => {
    const base = { DATABASE_URL: 'postgresql://u:p@127.0.0.1:5432/db', INTROSPECTION_CLIENT_SECRET: 'test-introspection-secret-0123456789' };
    expect(loadResourceConfig(base).rateLimits).toEqual({
      enabled: true,
      writesPerUser: { max: 600, windowSeconds: 60 },
      anonymousPerIp: { max: 6000, windowSeconds: 60 },
    });
    expect(
      loadResourceConfig({
        ...base,
        RATE_LIMITS_ENABLED: 'false',
        RATE_LIMIT_WRITES_PER_USER: '5',
        RATE_LIMIT_WRITES_WINDOW_SECONDS: '6',
        RATE_LIMIT_ANONYMOUS_PER_IP: '7',
        RATE_LIMIT_ANONYMOUS_WINDOW_SECONDS: '8',
      }).rateLimits,
    ).toEqual({ enabled: false, writesPerUser: { max: 5, windowSeconds: 6 }, anonymousPerIp: { max: 7, windowSeconds: 8 } });
    expect(() => loadResourceConfig({ ...base, RATE_LIMIT_WRITES_PER_USER: '0' })).toThrow('RATE_LIMIT_WRITES_PER_USER');
  });
});

describe('the /mcp limits', () => {
  const call = (name: string, id: number | string = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });

  it('a tools/call of a tool that writes is a write; reads, listings and unknown tools are not', () => {
    expect(writesIn(call('create_course'))).toBe(1);
    expect(writesIn(call('update_course'))).toBe(1);
    expect(writesIn(call('list_students'))).toBe(0);
    expect(writesIn(call('no_such_tool'))).toBe(0);
    expect(writesIn({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).toBe(0);
    expect(writesIn([call('create_course', 1), call('create_post', 2), call('list_students', 3)])).toBe(2);
    expect(writesIn('garbage')).toBe(0);
  });

  function reply() {
    const sent: { status?: number; headers: Record<string, string>; body?: string } = { headers: {} };
    const fake = {
      status(code: number) {
        sent.status = code;
        return fake;
      },
      header(name: string, value: string) {
        sent.headers[name] = value;
        return fake;
      },
      send(body: string) {
        sent.body = body;
        return fake;
      },
    };
    return { fake, sent };
  }

  it('answers 429 with Retry-After and the JSON-RPC error the handler writes, with the request’s id', async () => {
    const hook = mcpLimitHook(limits(), async () => user('ada'));
    const request = (body: unknown) => ({ headers: { authorization: 'Bearer t' }, body, ip: '198.51.100.7' }) as never;
    for (let i = 0; i < 3; i++) {
      const { fake, sent } = reply();
      await hook(request(call('create_course', i)), fake as never);
      expect(sent.status).toBeUndefined();
    }
    const { fake, sent } = reply();
    await hook(request(call('create_course', 'call-4')), fake as never);
    expect(sent.status).toBe(429);
    expect(Number(sent.headers['retry-after'])).toBeGreaterThan(0);
    expect(JSON.parse(sent.body as string)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: expect.stringMatching(/^Too many writes by this user; retry after \d+ seconds$/) },
      id: 'call-4',
    });
    // The same user's reads go on.
    const read = reply();
    await hook(request(call('list_students')), read.fake as never);
    expect(read.sent.status).toBeUndefined();
  });

  it('leaves a request whose token does not validate to the handler (its 401 and challenge)', async () => {
    const hook = mcpLimitHook(limits(), async () => {
      throw new Error('invalid token');
    });
    const { fake, sent } = reply();
    for (let i = 0; i < 10; i++) await hook({ headers: { authorization: 'Bearer bad' }, body: call('create_course'), ip: '198.51.100.7' } as never, fake as never);
    expect(sent.status).toBeUndefined();
  });
});
