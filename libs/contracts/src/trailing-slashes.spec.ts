import { withoutTrailingSlashes } from './trailing-slashes';

describe('withoutTrailingSlashes', () => {
  it.each([
    ['http://a.example/', 'http://a.example'],
    ['http://a.example///', 'http://a.example'],
    ['http://a.example/x', 'http://a.example/x'],
    ['/', ''],
    ['', ''],
    ['a//b', 'a//b'],
  ])('%j → %j', (value, expected) => {
    expect(withoutTrailingSlashes(value)).toBe(expected);
  });

  it('reads a long run of slashes that does not end the string in one pass', () => {
    const value = `http://a.example${'/'.repeat(200_000)}x`;
    expect(withoutTrailingSlashes(value)).toBe(value);
    expect(withoutTrailingSlashes(`${value}${'/'.repeat(200_000)}`)).toBe(value);
  });
});
