import { approvingBrowserOf, deviceOf, networkOf } from './approving-browser';

describe('what the connected-apps page keeps of an approving browser', () => {
  it.each<[string, string | undefined, string | null]>([
    ['Chrome on macOS', 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36', 'Chrome on macOS'],
    ['Firefox on Windows', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0', 'Firefox on Windows'],
    ['Safari on iOS', 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1', 'Safari on iOS'],
    ['headless Chromium on Linux', 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36', 'Chrome on Linux'],
    ['no User-Agent', undefined, null],
    ['an unrecognisable one', 'x', null],
  ])('%s', (_name, userAgent, expected) => {
    expect(deviceOf(userAgent)).toBe(expected);
  });

  it('never keeps versions or build strings', () => {
    const device = deviceOf('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.86 Safari/537.36 Edg/131.0.2903.70');
    expect(device).toBe('Microsoft Edge on Windows');
    expect(device).not.toMatch(/\d/);
  });

  it.each([
    ['203.0.113.77', '203.0.113.0/24'],
    ['::ffff:198.51.100.9', '198.51.100.0/24'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1::/48'],
    ['::1', '::/48'],
    ['not an address', null],
  ])('keeps the network of %s, never the address: %s', (address, network) => {
    expect(networkOf(address)).toBe(network);
  });

  it('reads both from the request', () => {
    expect(approvingBrowserOf({ ip: '192.0.2.10', userAgent: undefined })).toEqual({ device: null, network: '192.0.2.0/24' });
  });
});
