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
      shutdownDrainMs: 0,
      dnsRefreshMs: 1000,
      publicOrigin: undefined,
    });
  });

  it.each([
    ['PORT', { PORT: 'eighty' }],
    ['AUTH_SERVER_URL', { AUTH_SERVER_URL: 'http://auth:3001/path' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'verbose' }],
    ['SHUTDOWN_TIMEOUT_MS', { SHUTDOWN_TIMEOUT_MS: '5' }],
    ['SHUTDOWN_DRAIN_MS', { SHUTDOWN_DRAIN_MS: 'later' }],
    ['GATEWAY_DNS_REFRESH_MS', { GATEWAY_DNS_REFRESH_MS: '10' }],
    ['UPLOAD_MAX_BYTES', { UPLOAD_MAX_BYTES: '-1' }],
    ['GATEWAY_TRUST_PROXY', { GATEWAY_TRUST_PROXY: 'yes' }],
    ['PUBLIC_BASE_URL', { PUBLIC_BASE_URL: 'ftp://academy.example' }],
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

  it('refuses a GATEWAY_TRUST_PROXY entry as the services refuse one in TRUSTED_PROXIES, naming it', () => {
    expect(() => loadGatewayConfig({ GATEWAY_TRUST_PROXY: 'loopback, 10.0.0.0/33' })).toThrow(
      'GATEWAY_TRUST_PROXY: not an IP address, CIDR range or proxy-addr keyword: 10.0.0.0/33',
    );
  });

  it('lists every malformed variable, one a line', () => {
    expect(() => loadGatewayConfig({ PORT: 'eighty', LOG_LEVEL: 'verbose' })).toThrow(/^PORT: .*\nLOG_LEVEL: /);
  });

  it('takes a variable set to nothing for one not set', () => {
    const empty = { HOST: '', AUTH_SERVER_URL: '', RESOURCE_SERVER_URL: '', GATEWAY_TRUST_PROXY: '', UPLOAD_MAX_BYTES: '', LOG_LEVEL: '', SHUTDOWN_TIMEOUT_MS: '', PUBLIC_BASE_URL: '' };
    expect(loadGatewayConfig(empty)).toEqual(loadGatewayConfig({}));
  });

  it('forwards to the origin of an upstream URL', () => {
    expect(loadGatewayConfig({ AUTH_SERVER_URL: 'HTTP://Auth.internal:3001/' }).upstreams['auth-server']).toBe('http://auth.internal:3001');
  });

  it('keeps the origin of PUBLIC_BASE_URL, as the services read it', () => {
    expect(loadGatewayConfig({ PUBLIC_BASE_URL: 'https://Academy.Example:443/' }).publicOrigin).toBe('https://academy.example');
    expect(loadGatewayConfig({ PUBLIC_BASE_URL: 'http://127.0.0.1:3000' }).publicOrigin).toBe('http://127.0.0.1:3000');
  });

  it('reads the upload limit from the same variable as the resource server', () => {
    expect(loadGatewayConfig({ UPLOAD_MAX_BYTES: String(20 * 1024 * 1024) }).uploadMaxBytes).toBe(20 * 1024 * 1024);
  });
});
