import { ConfigError, loadResourceConfig } from './resource-config';

const minimal = {
  DATABASE_URL: 'postgresql://postgres:postgres@127.0.0.1:5432/resource',
  INTROSPECTION_CLIENT_SECRET: 'a-secret-of-sixteen+',
};

describe('loadResourceConfig', () => {
  it('fills the documented defaults', () => {
    const config = loadResourceConfig(minimal);
    expect(config).toMatchObject({
      env: 'development',
      host: '127.0.0.1',
      port: 3002,
      resource: 'http://127.0.0.1:3000',
      resourceMetadataUrl: 'http://127.0.0.1:3000/.well-known/oauth-protected-resource',
      database: { poolSize: 10 },
      introspection: {
        endpoint: 'http://127.0.0.1:3001/api/oauth/introspect',
        clientId: 'resource-server',
        cacheTtlSeconds: 300,
        inactiveTtlSeconds: 10,
      },
      defaultSchoolId: 'demo-school',
      storage: { maxUploadBytes: 5 * 1024 * 1024 },
      embedded: false,
      seedDemoData: false,
      authServerUrl: 'http://127.0.0.1:3001',
      operations: { logLevel: 'info', healthCheckTimeoutMs: 1000, shutdownTimeoutMs: 8000 },
    });
  });

  it('derives the canonical resource URI without a trailing slash', () => {
    const config = loadResourceConfig({ ...minimal, PUBLIC_BASE_URL: 'https://academy.example/', AUTH_SERVER_URL: 'http://auth:3001/' });
    expect(config.resource).toBe('https://academy.example');
    expect(config.introspection.endpoint).toBe('http://auth:3001/api/oauth/introspect');
  });

  it('uses one connection and seeds the demo data in the embedded mode', () => {
    expect(loadResourceConfig({ ...minimal, EMBEDDED_MODE: 'true' })).toMatchObject({
      database: { poolSize: 1 },
      embedded: true,
      seedDemoData: true,
    });
  });

  it.each([
    ['DATABASE_URL', { ...minimal, DATABASE_URL: undefined }],
    ['INTROSPECTION_CLIENT_SECRET', { ...minimal, INTROSPECTION_CLIENT_SECRET: 'short' }],
    ['RESOURCE_PORT', { ...minimal, RESOURCE_PORT: 'eighty' }],
    ['UPLOAD_MAX_BYTES', { ...minimal, UPLOAD_MAX_BYTES: '-1' }],
    ['SEED_DEMO_DATA', { ...minimal, SEED_DEMO_DATA: 'yes' }],
    ['LOG_LEVEL', { ...minimal, LOG_LEVEL: 'verbose' }],
    ['HEALTH_CHECK_TIMEOUT_MS', { ...minimal, HEALTH_CHECK_TIMEOUT_MS: 'fast' }],
    ['SHUTDOWN_TIMEOUT_MS', { ...minimal, SHUTDOWN_TIMEOUT_MS: '-5' }],
  ])('names %s when it is missing or malformed', (variable, env) => {
    expect(() => loadResourceConfig(env)).toThrow(ConfigError);
    expect(() => loadResourceConfig(env)).toThrow(variable);
  });

  it.each([
    ['SEED_DEMO_DATA', { SEED_DEMO_DATA: 'true' }],
    ['EMBEDDED_MODE', { EMBEDDED_MODE: 'true', SEED_DEMO_DATA: 'false' }],
    ['INTROSPECTION_CLIENT_SECRET', { INTROSPECTION_CLIENT_SECRET: 'x'.repeat(31) }],
    ['REDIS_URL', { REDIS_URL: undefined }],
  ])('refuses development settings in production: %s', (variable, env) => {
    const load = () => loadResourceConfig({ ...minimal, NODE_ENV: 'production', REDIS_URL: 'redis://redis.internal:6379', ...env });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(new RegExp(`^${variable}: `));
  });

  it('starts in production with a real database, Redis and a 32-character secret (uploads need no directory: they are kept in the database)', () => {
    const config = loadResourceConfig({
      ...minimal,
      NODE_ENV: 'production',
      PUBLIC_BASE_URL: 'https://academy.example',
      INTROSPECTION_CLIENT_SECRET: 'x'.repeat(32),
      REDIS_URL: 'redis://redis.internal:6379',
      LOG_LEVEL: 'warn',
    });
    expect(config).toMatchObject({ env: 'production', embedded: false, seedDemoData: false, operations: { logLevel: 'warn' } });
  });
});
