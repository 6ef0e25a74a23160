import { loadGatewayConfig } from './config';

describe('loadGatewayConfig', () => {
  it('fills the defaults', () => {
    expect(loadGatewayConfig({})).toEqual({
      host: '127.0.0.1',
      port: 3000,
      upstreams: { 'auth-server': 'http://127.0.0.1:3001', 'resource-server': 'http://127.0.0.1:3002' },
      trustProxy: false,
      bodyLimits: { 'auth-server': 64 * 1024, 'resource-server': 1024 * 1024 },
      uploadMaxBytes: 5 * 1024 * 1024,
      logLevel: 'info',
      shutdownTimeoutMs: 8000,
    });
  });

  it.each([
    ['PORT', { PORT: 'eighty' }],
    ['AUTH_SERVER_URL', { AUTH_SERVER_URL: 'http://auth:3001/path' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'verbose' }],
    ['SHUTDOWN_TIMEOUT_MS', { SHUTDOWN_TIMEOUT_MS: '5' }],
    ['UPLOAD_MAX_BYTES', { UPLOAD_MAX_BYTES: '-1' }],
    ['GATEWAY_TRUST_PROXY', { GATEWAY_TRUST_PROXY: 'yes' }],
  ])('names %s when it is malformed', (variable, env) => {
    expect(() => loadGatewayConfig(env)).toThrow(new RegExp(`^${variable}: `));
  });

  it.each([
    ['false', false],
    ['true', true],
    ['10.0.0.2, 192.168.0.0/16,loopback', ['10.0.0.2', '192.168.0.0/16', 'loopback']],
  ])('reads GATEWAY_TRUST_PROXY=%s', (value, expected) => {
    expect(loadGatewayConfig({ GATEWAY_TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it('reads the upload limit from the same variable as the resource server', () => {
    expect(loadGatewayConfig({ UPLOAD_MAX_BYTES: String(20 * 1024 * 1024) }).uploadMaxBytes).toBe(20 * 1024 * 1024);
  });
});
