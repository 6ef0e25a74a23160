import { loadGatewayConfig } from './config';

describe('loadGatewayConfig', () => {
  it('fills the defaults', () => {
    expect(loadGatewayConfig({})).toEqual({
      host: '127.0.0.1',
      port: 3000,
      upstreams: { 'auth-server': 'http://127.0.0.1:3001', 'resource-server': 'http://127.0.0.1:3002' },
      trustProxy: false,
      logLevel: 'info',
      shutdownTimeoutMs: 8000,
    });
  });

  it.each([
    ['PORT', { PORT: 'eighty' }],
    ['AUTH_SERVER_URL', { AUTH_SERVER_URL: 'http://auth:3001/path' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'verbose' }],
    ['SHUTDOWN_TIMEOUT_MS', { SHUTDOWN_TIMEOUT_MS: '5' }],
  ])('names %s when it is malformed', (variable, env) => {
    expect(() => loadGatewayConfig(env)).toThrow(new RegExp(`^${variable}: `));
  });
});
