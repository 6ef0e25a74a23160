import { ConfigError, loadAuthConfig } from './auth-config';
import { loadLimitsConfig } from './limits-config';

describe('loadLimitsConfig', () => {
  it('has defaults for every limit', () => {
    expect(loadLimitsConfig({})).toEqual({
      rateLimits: {
        enabled: true,
        trustedProxies: ['loopback'],
        registrationPerIp: { max: 30, windowSeconds: 3600 },
        tokenPerIp: { max: 3000, windowSeconds: 60 },
        introspectionPerCaller: { max: 6000, windowSeconds: 60 },
      },
      tokenEndpoint: {
        failuresPerIp: { max: 30, windowSeconds: 60 },
        perGrant: { max: 60, windowSeconds: 60 },
        perUser: { max: 300, windowSeconds: 60 },
        perAuthenticatedClient: { max: 600, windowSeconds: 60 },
      },
      refreshStaleSessionsKeepGrant: true,
      login: {
        account: { freeFailures: 5, baseDelaySeconds: 1, maxDelaySeconds: 900, forgetAfterSeconds: 3600, maxConcurrent: 10 },
        ip: { freeFailures: 30, baseDelaySeconds: 1, maxDelaySeconds: 900, forgetAfterSeconds: 3600, maxConcurrent: 50 },
      },
      maintenance: { enabled: true, intervalSeconds: 600, batchSize: 500, clientUnusedTtlSeconds: 86400, graceSeconds: 86400 },
    });
  });

  it('reads every variable', () => {
    const limits = loadLimitsConfig({
      RATE_LIMITS_ENABLED: 'false',
      TRUSTED_PROXIES: '10.0.0.0/8, ::1',
      RATE_LIMIT_REGISTRATION_PER_IP: '5',
      RATE_LIMIT_REGISTRATION_WINDOW_SECONDS: '60',
      RATE_LIMIT_TOKEN_PER_IP: '8',
      RATE_LIMIT_TOKEN_WINDOW_SECONDS: '9',
      RATE_LIMIT_TOKEN_FAILURES_PER_IP: '12',
      RATE_LIMIT_TOKEN_FAILURES_WINDOW_SECONDS: '13',
      RATE_LIMIT_TOKEN_PER_GRANT: '14',
      RATE_LIMIT_TOKEN_PER_USER: '15',
      RATE_LIMIT_TOKEN_PER_AUTHENTICATED_CLIENT: '16',
      REFRESH_STALE_SESSIONS_KEEP_GRANT: 'false',
      RATE_LIMIT_INTROSPECTION_PER_CALLER: '10',
      RATE_LIMIT_INTROSPECTION_WINDOW_SECONDS: '11',
      LOGIN_FREE_FAILURES_PER_ACCOUNT: '2',
      LOGIN_FREE_FAILURES_PER_IP: '3',
      LOGIN_BACKOFF_BASE_SECONDS: '4',
      LOGIN_BACKOFF_MAX_SECONDS: '40',
      LOGIN_FAILURES_FORGOTTEN_AFTER_SECONDS: '400',
      LOGIN_MAX_CONCURRENT_PER_ACCOUNT: '6',
      LOGIN_MAX_CONCURRENT_PER_IP: '7',
      MAINTENANCE_ENABLED: '0',
      MAINTENANCE_INTERVAL_SECONDS: '30',
      MAINTENANCE_BATCH_SIZE: '50',
      CLIENT_UNUSED_TTL_SECONDS: '3600',
      MAINTENANCE_GRACE_SECONDS: '120',
    });
    expect(limits.rateLimits).toEqual({
      enabled: false,
      trustedProxies: ['10.0.0.0/8', '::1'],
      registrationPerIp: { max: 5, windowSeconds: 60 },
      tokenPerIp: { max: 8, windowSeconds: 9 },
      introspectionPerCaller: { max: 10, windowSeconds: 11 },
    });
    expect(limits.tokenEndpoint).toEqual({
      failuresPerIp: { max: 12, windowSeconds: 13 },
      perGrant: { max: 14, windowSeconds: 9 },
      perUser: { max: 15, windowSeconds: 9 },
      perAuthenticatedClient: { max: 16, windowSeconds: 9 },
    });
    expect(limits.refreshStaleSessionsKeepGrant).toBe(false);
    expect(limits.login.account).toEqual({ freeFailures: 2, baseDelaySeconds: 4, maxDelaySeconds: 40, forgetAfterSeconds: 400, maxConcurrent: 6 });
    expect(limits.login.ip).toMatchObject({ freeFailures: 3, maxConcurrent: 7 });
    expect(limits.maintenance).toEqual({ enabled: false, intervalSeconds: 30, batchSize: 50, clientUnusedTtlSeconds: 3600, graceSeconds: 120 });
  });

  it.each([
    ['RATE_LIMIT_TOKEN_PER_GRANT', '0'],
    ['RATE_LIMIT_TOKEN_FAILURES_PER_IP', 'lots'],
    ['REFRESH_STALE_SESSIONS_KEEP_GRANT', 'maybe'],
    ['RATE_LIMIT_REGISTRATION_WINDOW_SECONDS', '-1'],
    ['LOGIN_BACKOFF_BASE_SECONDS', '1.5'],
    ['MAINTENANCE_BATCH_SIZE', '100000'],
    ['RATE_LIMITS_ENABLED', 'yes'],
    ['TRUSTED_PROXIES', 'gateway.internal'],
    ['TRUSTED_PROXIES', '10.0.0.0/40'],
  ])('refuses %s=%s, naming it', (name, value) => {
    expect(() => loadLimitsConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadLimitsConfig({ [name]: value })).toThrow(name);
  });

  it('refuses a backoff ceiling below its start', () => {
    expect(() => loadLimitsConfig({ LOGIN_BACKOFF_BASE_SECONDS: '60', LOGIN_BACKOFF_MAX_SECONDS: '10' })).toThrow('LOGIN_BACKOFF_MAX_SECONDS');
  });

  it('is part of the auth-server configuration, read from the same environment', () => {
    const config = loadAuthConfig({
      DATABASE_URL: 'postgresql://u:p@127.0.0.1:5432/db',
      INTROSPECTION_CLIENT_ID: 'resource-server',
      INTROSPECTION_CLIENT_SECRET: 'test-introspection-secret-0123456789',
      RATE_LIMIT_TOKEN_PER_AUTHENTICATED_CLIENT: '3',
      TRUSTED_PROXIES: '10.0.0.0/8, loopback',
    });
    expect(config.limits.tokenEndpoint.perAuthenticatedClient).toEqual({ max: 3, windowSeconds: 60 });
    expect(config.limits.rateLimits.trustedProxies).toEqual(['10.0.0.0/8', 'loopback']);
  });
});
