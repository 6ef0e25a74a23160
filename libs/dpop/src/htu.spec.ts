import { normalizedHtu } from './htu';

describe('normalizedHtu', () => {
  it.each([
    ['https://a.example/x?q=1#f', 'https://a.example/x'],
    ['HTTPS://A.EXAMPLE:443/x', 'https://a.example/x'],
    ['http://a.example:80', 'http://a.example/'],
    ['https://a.example:8443/a/../b', 'https://a.example:8443/b'],
    ['https://a.example/%7euser/%2f', 'https://a.example/~user/%2F'],
  ])('%s is compared as %s', (value, normalized) => {
    expect(normalizedHtu(value)).toBe(normalized);
  });

  it.each([['/relative'], ['not a url'], ['ftp://a.example/x'], ['https://user:pw@a.example/x']])('%s is no htu', (value) => {
    expect(normalizedHtu(value)).toBeUndefined();
  });
});
