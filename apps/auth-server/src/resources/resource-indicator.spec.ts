import { InvalidTargetError } from '@platform/oauth-errors';
import { normalizeResourceUri, resolveResource } from './resource-indicator';

describe('resolveResource (RFC 8707)', () => {
  const api = 'http://127.0.0.1:3000';

  it.each([
    [undefined],
    [''],
    ['http://127.0.0.1:3000'],
    ['http://127.0.0.1:3000/'],
    ['HTTP://127.0.0.1:3000'],
    ['HTTP://127.0.0.1:3000/'],
    ['http://127.0.0.1:3000/mcp'],
    ['http://127.0.0.1:3000/mcp/'],
    ['http://127.0.0.1:3000/%6Dcp'],
    ['http://127.0.0.1:3000/api/v1'],
  ])('binds %s to the canonical API URI', (requested) => {
    expect(resolveResource(api, requested)).toBe(api);
  });

  it.each([
    ['an upper-case host', 'https://platform.example', 'HTTPS://PLATFORM.EXAMPLE/'],
    ['a default port', 'https://platform.example', 'https://platform.example:443/mcp'],
    ['a canonical URI written with a trailing slash', 'https://platform.example/', 'https://platform.example'],
    ['a base path and URL.href of it', 'https://example.com/platform', 'https://EXAMPLE.com/platform/'],
  ])('normalizes both sides: %s', (_name, canonical, requested) => {
    expect(resolveResource(canonical, requested)).toBe(canonical);
  });

  it.each([
    ['another origin', 'https://api.example.com', 'Unknown resource; this server issues tokens for http://127.0.0.1:3000'],
    ['another port', 'http://127.0.0.1:4000/mcp', 'Unknown resource; this server issues tokens for http://127.0.0.1:3000'],
    ['another scheme', 'https://127.0.0.1:3000/mcp', 'Unknown resource; this server issues tokens for http://127.0.0.1:3000'],
    ['a relative URI', '/mcp', 'The resource parameter must be an absolute URI'],
    ['a fragment', 'http://127.0.0.1:3000/mcp#x', 'The resource parameter must not have a fragment'],
    ['userinfo', 'http://u@127.0.0.1:3000/mcp', 'Unknown resource; this server issues tokens for http://127.0.0.1:3000'],
    ['not a URI', 'mcp', 'The resource parameter must be an absolute URI'],
    ['not http(s)', 'urn:example:api', 'Unknown resource; this server issues tokens for http://127.0.0.1:3000'],
  ])('refuses %s with invalid_target', (_name, requested, description) => {
    expect(() => resolveResource(api, requested)).toThrow(new InvalidTargetError(description));
  });

  it('honours a base URL with a path', () => {
    expect(resolveResource('https://example.com/platform', 'https://example.com/platform/mcp')).toBe(
      'https://example.com/platform',
    );
    expect(() => resolveResource('https://example.com/platform', 'https://example.com/other')).toThrow(InvalidTargetError);
    expect(() => resolveResource('https://example.com/platform', 'https://example.com/platformx')).toThrow(InvalidTargetError);
  });
});

describe('normalizeResourceUri (RFC 3986 §6.2)', () => {
  it.each([
    ['HTTP://Example.COM', { origin: 'http://example.com', path: '' }],
    ['http://example.com/', { origin: 'http://example.com', path: '' }],
    ['http://example.com:80/mcp/', { origin: 'http://example.com', path: '/mcp' }],
    ['http://example.com/a/../mcp', { origin: 'http://example.com', path: '/mcp' }],
    ['http://example.com/%7euser/%2f', { origin: 'http://example.com', path: '/~user/%2F' }],
  ])('%s', (value, expected) => {
    expect(normalizeResourceUri(value)).toEqual({ ...expected, hasUserinfo: false });
  });
});

describe('normalizeResourceUri on a long run of slashes (issue 33)', () => {
  // 100,000 slashes before an `x`: the trailing-slash regex this replaced took ~3 s here (it is
  // quadratic: ~1 s at 60,000); the linear trim takes about a millisecond. The bound is far
  // above both the noise and the linear cost, and far below the quadratic one.
  const run = '/'.repeat(100_000);

  it.each([
    ['a run inside the path', `http://example.com/${run}x`, `/${run}x`],
    ['a run at the end', `http://example.com/mcp${run}`, '/mcp'],
  ])('%s: linear time, the same answer', (_name, value, path) => {
    const started = performance.now();
    const normalized = normalizeResourceUri(value);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(normalized).toEqual({ origin: 'http://example.com', path, hasUserinfo: false });
  });

  it('resolveResource refuses such a path under another origin promptly', () => {
    const started = performance.now();
    expect(() => resolveResource('http://127.0.0.1:3000', `http://127.0.0.1:4000/${run}x`)).toThrow(InvalidTargetError);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
