import { ConfigError } from './config-error';
import { isHostAllowed, loadCimdConfig } from './cimd-config';

describe('loadCimdConfig', () => {
  it('defaults: on, any public host, 3 s, 5 KB, cache between 60 s and 24 h, 30 fetches per host a minute, no test allowances', () => {
    expect(loadCimdConfig({})).toEqual({
      enabled: true,
      allowedHosts: [],
      deniedHosts: [],
      fetchTimeoutMs: 3000,
      fetchesPerHostPerMinute: 30,
      maxDocumentBytes: 5120,
      cacheMinSeconds: 60,
      cacheMaxSeconds: 86_400,
      allowSpecialUseAddresses: false,
      extraCaCertificates: undefined,
    });
  });

  it('reads host lists', () => {
    const config = loadCimdConfig({ CIMD_ALLOWED_HOSTS: 'claude.ai, *.vscode.dev', CIMD_DENIED_HOSTS: 'Evil.Example' });
    expect(config.allowedHosts).toEqual(['claude.ai', '*.vscode.dev']);
    expect(config.deniedHosts).toEqual(['evil.example']);
  });

  it.each(['CIMD_ALLOW_SPECIAL_USE_HOSTS', 'CIMD_EXTRA_CA_FILE'])('refuses %s at start when NODE_ENV=production', (name) => {
    const value = name === 'CIMD_EXTRA_CA_FILE' ? '/etc/ssl/certs/ca-certificates.crt' : 'true';
    expect(() => loadCimdConfig({ NODE_ENV: 'production', [name]: value })).toThrow(ConfigError);
    expect(() => loadCimdConfig({ NODE_ENV: 'production', [name]: value })).toThrow(`${name} is for tests only`);
  });

  it('refuses a malformed host list and a floor above the ceiling', () => {
    expect(() => loadCimdConfig({ CIMD_ALLOWED_HOSTS: 'https://claude.ai/' })).toThrow(ConfigError);
    expect(() => loadCimdConfig({ CIMD_CACHE_MIN_SECONDS: '600', CIMD_CACHE_MAX_SECONDS: '60' })).toThrow(ConfigError);
  });
});

describe('isHostAllowed', () => {
  const url = (href: string) => new URL(href);
  it.each([
    ['no lists: any host', [], [], 'https://claude.ai/x', true],
    ['exact allow', ['claude.ai'], [], 'https://claude.ai/x', true],
    ['not on the allow list', ['claude.ai'], [], 'https://vscode.dev/x', false],
    ['wildcard allows subdomains', ['*.example.com'], [], 'https://app.example.com/x', true],
    ['wildcard does not allow the bare domain', ['*.example.com'], [], 'https://example.com/x', false],
    ['wildcard is not a suffix match on labels', ['*.example.com'], [], 'https://badexample.com/x', false],
    ['deny wins over allow', ['*.example.com'], ['app.example.com'], 'https://app.example.com/x', false],
    ['host:port pattern', ['app.example.com:8443'], [], 'https://app.example.com:8443/x', true],
  ])('%s', (_name, allowedHosts, deniedHosts, href, expected) => {
    expect(isHostAllowed(url(href), { allowedHosts, deniedHosts })).toBe(expected);
  });
});
