import { InvalidTargetError } from '@platform/oauth-errors';
import { resolveResource } from './resource-indicator';

describe('resolveResource (RFC 8707)', () => {
  const api = 'http://127.0.0.1:3000';

  it.each([
    [undefined],
    [''],
    ['http://127.0.0.1:3000'],
    ['http://127.0.0.1:3000/'],
    ['http://127.0.0.1:3000/mcp'],
    ['http://127.0.0.1:3000/mcp/'],
    ['http://127.0.0.1:3000/api/v1'],
  ])('binds %s to the canonical API URI', (requested) => {
    expect(resolveResource(api, requested)).toBe(api);
  });

  it.each([
    ['another origin', 'https://api.example.com'],
    ['another port', 'http://127.0.0.1:4000/mcp'],
    ['a relative URI', '/mcp'],
    ['a fragment', 'http://127.0.0.1:3000/mcp#x'],
    ['userinfo', 'http://u@127.0.0.1:3000/mcp'],
    ['not a URI', 'mcp'],
  ])('refuses %s with invalid_target', (_name, requested) => {
    expect(() => resolveResource(api, requested)).toThrow(InvalidTargetError);
  });

  it('honours a base URL with a path', () => {
    expect(resolveResource('https://example.com/platform', 'https://example.com/platform/mcp')).toBe(
      'https://example.com/platform',
    );
    expect(() => resolveResource('https://example.com/platform', 'https://example.com/other')).toThrow(InvalidTargetError);
  });
});
