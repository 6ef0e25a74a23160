import { ConfigError, loadAuthConfig } from './auth-config';

const minimal = {
  DATABASE_URL: 'postgresql://postgres:postgres@127.0.0.1:5432/auth',
  INTROSPECTION_CLIENT_SECRET: 'a-secret-of-sixteen+',
};

const production = {
  ...minimal,
  NODE_ENV: 'production',
  PUBLIC_BASE_URL: 'https://academy.example',
  OIDC_SIGNING_KEYS: '[]',
  INTROSPECTION_CLIENT_SECRET: 'x'.repeat(32),
  REDIS_URL: 'redis://redis.internal:6379',
  RESOURCE_SERVER_URL: 'http://resource-server:3002',
};

describe('loadAuthConfig', () => {
  it('fills the documented defaults', () => {
    expect(loadAuthConfig(minimal)).toMatchObject({
      env: 'development',
      host: '127.0.0.1',
      port: 3001,
      issuer: 'http://127.0.0.1:3000',
      database: { poolSize: 10 },
      ttl: { refreshReuseGrace: 30 },
      introspectionClient: { id: 'resource-server' },
      embedded: false,
      seedDemoData: false,
      operations: { logLevel: 'info', healthCheckTimeoutMs: 1000, shutdownTimeoutMs: 8000 },
    });
  });

  it('reads the refresh reuse window; 0 turns it off', () => {
    expect(loadAuthConfig({ ...minimal, REFRESH_REUSE_GRACE_SECONDS: '0' }).ttl.refreshReuseGrace).toBe(0);
    expect(loadAuthConfig({ ...minimal, REFRESH_REUSE_GRACE_SECONDS: '300' }).ttl.refreshReuseGrace).toBe(300);
  });

  it('reads the log level and the deadlines', () => {
    expect(
      loadAuthConfig({ ...minimal, LOG_LEVEL: 'debug', HEALTH_CHECK_TIMEOUT_MS: '500', SHUTDOWN_TIMEOUT_MS: '20000', SHUTDOWN_DRAIN_MS: '3000' }).operations,
    ).toEqual({ logLevel: 'debug', healthCheckTimeoutMs: 500, shutdownTimeoutMs: 20000, shutdownDrainMs: 3000 });
  });

  it.each([
    ['DATABASE_URL', { ...minimal, DATABASE_URL: undefined }],
    ['INTROSPECTION_CLIENT_SECRET', { ...minimal, INTROSPECTION_CLIENT_SECRET: 'short' }],
    ['LOG_LEVEL', { ...minimal, LOG_LEVEL: 'verbose' }],
    ['HEALTH_CHECK_TIMEOUT_MS', { ...minimal, HEALTH_CHECK_TIMEOUT_MS: '0' }],
    ['SHUTDOWN_TIMEOUT_MS', { ...minimal, SHUTDOWN_TIMEOUT_MS: 'later' }],
    ['REFRESH_REUSE_GRACE_SECONDS', { ...minimal, REFRESH_REUSE_GRACE_SECONDS: '-1' }],
    ['REFRESH_REUSE_GRACE_SECONDS', { ...minimal, REFRESH_REUSE_GRACE_SECONDS: '301' }],
    ['REFRESH_REUSE_GRACE_SECONDS', { ...minimal, REFRESH_REUSE_GRACE_SECONDS: '1.5' }],
    ['OIDC_SIGNING_KEY_ACTIVATION_SECONDS', { ...minimal, OIDC_SIGNING_KEY_ACTIVATION_SECONDS: '-1' }],
  ])('names %s when it is missing or malformed', (variable, env) => {
    expect(() => loadAuthConfig(env)).toThrow(ConfigError);
    expect(() => loadAuthConfig(env)).toThrow(variable);
  });

  it('sends the security events to the resource server’s ingest', () => {
    expect(loadAuthConfig({ ...minimal, RESOURCE_SERVER_URL: 'http://resource-server:3002/' }).securityEvents).toEqual({
      ingestUrl: 'http://resource-server:3002/internal/security-events',
      relayEnabled: true,
      intervalMs: 1000,
      timeoutMs: 10000,
    });
  });

  it('starts in production with an https issuer, a signing key and a 32-character secret', () => {
    expect(loadAuthConfig(production)).toMatchObject({ env: 'production', embedded: false, seedDemoData: false });
  });

  it.each([
    ['PUBLIC_BASE_URL', { PUBLIC_BASE_URL: 'http://academy.example' }],
    ['SEED_DEMO_DATA', { SEED_DEMO_DATA: 'true' }],
    ['EMBEDDED_MODE', { EMBEDDED_MODE: 'true', SEED_DEMO_DATA: 'false' }],
    ['OIDC_SIGNING_KEYS', { OIDC_SIGNING_KEYS: undefined }],
    ['INTROSPECTION_CLIENT_SECRET', { INTROSPECTION_CLIENT_SECRET: 'x'.repeat(31) }],
    ['REDIS_URL', { REDIS_URL: undefined }],
    ['RESOURCE_SERVER_URL', { RESOURCE_SERVER_URL: undefined }],
  ])('refuses development settings in production: %s', (variable, env) => {
    const load = () => loadAuthConfig({ ...production, ...env });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(new RegExp(`^${variable}: `));
  });
});
