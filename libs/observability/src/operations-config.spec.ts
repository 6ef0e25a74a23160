import { z } from 'zod';
import { operationsConfig, operationsEnv, pinoLevelOf } from './operations-config';

describe('operationsEnv', () => {
  const schema = z.object(operationsEnv);

  it('defaults to info, a 1 s check deadline and an 8 s shutdown deadline', () => {
    expect(operationsConfig(schema.parse({}))).toEqual({ logLevel: 'info', healthCheckTimeoutMs: 1000, shutdownTimeoutMs: 8000 });
  });

  it.each([
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['HEALTH_CHECK_TIMEOUT_MS', { HEALTH_CHECK_TIMEOUT_MS: '0' }],
    ['SHUTDOWN_TIMEOUT_MS', { SHUTDOWN_TIMEOUT_MS: 'soon' }],
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
