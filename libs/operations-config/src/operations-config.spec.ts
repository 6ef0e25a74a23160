import { z } from 'zod';
import {
  envProblems,
  hostEnv,
  operationsConfig,
  operationsEnv,
  pinoLevelOf,
  portEnv,
  trustedProxyListSchema,
  validateTrustedProxies,
} from './operations-config';

describe('operationsEnv', () => {
  const schema = z.object(operationsEnv);

  it('defaults to info, a 1 s check deadline, an 8 s shutdown deadline and no drain', () => {
    expect(operationsConfig(schema.parse({}))).toEqual({ logLevel: 'info', healthCheckTimeoutMs: 1000, shutdownTimeoutMs: 8000, shutdownDrainMs: 0 });
  });

  it.each([
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['HEALTH_CHECK_TIMEOUT_MS', { HEALTH_CHECK_TIMEOUT_MS: '0' }],
    ['SHUTDOWN_TIMEOUT_MS', { SHUTDOWN_TIMEOUT_MS: 'soon' }],
    ['SHUTDOWN_DRAIN_MS', { SHUTDOWN_DRAIN_MS: '-1' }],
  ])('refuses a malformed %s', (variable, env) => {
    const result = schema.safeParse(env);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual([variable]);
  });
});

describe('pinoLevelOf', () => {
  it.each([
    [false, 'silent'],
    [[], 'silent'],
    [['error'], 'error'],
    [['log', 'warn', 'error'], 'info'],
    [['error', 'verbose'], 'trace'],
  ] as const)('%j → %s', (levels, level) => {
    expect(pinoLevelOf(levels as never)).toBe(level);
  });
});

describe('hostEnv and portEnv', () => {
  const schema = z.object({ HOST: hostEnv, PORT: portEnv(3000) });

  it('default to loopback and the given port; 0 lets the system pick one', () => {
    expect(schema.parse({})).toEqual({ HOST: '127.0.0.1', PORT: 3000 });
    expect(schema.parse({ HOST: '0.0.0.0', PORT: '0' })).toEqual({ HOST: '0.0.0.0', PORT: 0 });
  });

  it.each(['eighty', '-1', '65536', '80.5'])('refuses PORT=%s', (port) => {
    expect(schema.safeParse({ PORT: port }).success).toBe(false);
  });
});

describe('trustedProxyListSchema', () => {
  it('reads a comma-separated list of addresses, ranges and proxy-addr keywords', () => {
    expect(trustedProxyListSchema.parse(' 10.0.0.2, 192.168.0.0/16,,loopback,::1 ')).toEqual(['10.0.0.2', '192.168.0.0/16', 'loopback', '::1']);
  });

  it.each(['10.0.0.0/33', 'gateway.local', 'yes'])('refuses %s, naming it', (entry) => {
    const result = trustedProxyListSchema.safeParse(`loopback,${entry}`);
    expect(result.error?.issues.map((issue) => issue.message)).toEqual([`not an IP address, CIDR range or proxy-addr keyword: ${entry}`]);
    expect(() => validateTrustedProxies(['loopback', entry])).toThrow(entry);
  });
});

describe('envProblems', () => {
  it('says each problem as NAME: message, in order', () => {
    const result = z.object({ PORT: portEnv(3000), ...operationsEnv }).safeParse({ PORT: 'x', LOG_LEVEL: 'loud' });
    if (result.success) throw new Error('expected PORT and LOG_LEVEL to be refused');
    expect(envProblems(result.error).map((line) => line.split(':')[0])).toEqual(['PORT', 'LOG_LEVEL']);
  });
});
