import { DEFAULT_BRANDING, acceptLogoUrl, schoolName, toBranding } from './branding';
import { NEUTRAL_THEME } from './theme';

const ORIGIN = 'http://127.0.0.1:3000';

describe('acceptLogoUrl', () => {
  it.each([
    ['an https URL', 'https://cdn.example.com/logo.png', 'https://cdn.example.com/logo.png', 'https://cdn.example.com'],
    ['an https URL with a port', 'https://cdn.example.com:8443/a/logo.svg', 'https://cdn.example.com:8443/a/logo.svg', 'https://cdn.example.com:8443'],
    ['the public origin over http', `${ORIGIN}/api/v1/storage/files/f1`, `${ORIGIN}/api/v1/storage/files/f1`, ORIGIN],
    ['a path on the public origin', '/api/v1/storage/files/f1', `${ORIGIN}/api/v1/storage/files/f1`, ORIGIN],
    ['an upper-case host (normalised)', 'https://CDN.Example.COM/l.png', 'https://cdn.example.com/l.png', 'https://cdn.example.com'],
    ['quotes (percent-encoded)', 'https://cdn.example.com/l.png" onerror="x', 'https://cdn.example.com/l.png%22%20onerror=%22x', 'https://cdn.example.com'],
  ])('accepts %s', (_, input, url, cspSource) => {
    expect(acceptLogoUrl(input, ORIGIN)).toEqual({ url, cspSource });
  });

  it.each([
    ['http on another origin', 'http://cdn.example.com/logo.png'],
    ['http on another port of the public host', 'http://127.0.0.1:3002/logo.png'],
    ['javascript:', 'javascript:alert(1)'],
    ['data:', 'data:image/svg+xml;base64,PHN2Zy8+'],
    ['credentials', 'https://user:secret@cdn.example.com/logo.png'],
    ['a host that smuggles CSP syntax', "https://cdn.example.com;script-src 'unsafe-inline'/x.png"],
    ['a host with a comma', 'https://a,b.example/x.png'],
    ['an IPv6 literal (no CSP host-source for it)', 'https://[2001:db8::1]/logo.png'],
    ['not a URL', 'https://'],
    ['an empty string', ''],
    ['a number', 42],
    ['null', null],
    ['a very long URL', `https://cdn.example.com/${'a'.repeat(2100)}`],
  ])('refuses %s', (_, input) => {
    expect(acceptLogoUrl(input, ORIGIN)).toBeUndefined();
  });
});

describe('schoolName', () => {
  it.each([
    ['Demo Academy', 'Demo Academy'],
    ['  Demo \n\t Academy  ', 'Demo Academy'],
    ['Demo\u0000Academy\u0085', 'Demo Academy'],
    ['x'.repeat(150), `${'x'.repeat(99)}…`],
  ])('%j becomes %j', (input, expected) => {
    expect(schoolName(input)).toBe(expected);
  });

  it.each([[''], ['   '], [null], [42], [{ name: 'x' }]])('%j is no name', (input) => {
    expect(schoolName(input)).toBeUndefined();
  });
});

describe('toBranding', () => {
  it('is the platform default without a usable school name', () => {
    expect(toBranding(undefined, { primary_color: '#4f46e5' }, ORIGIN)).toBe(DEFAULT_BRANDING);
    expect(toBranding({ name: '' }, { primary_color: '#4f46e5' }, ORIGIN)).toBe(DEFAULT_BRANDING);
  });

  it('is the name with the neutral theme without an appearance', () => {
    expect(toBranding({ name: 'Demo Academy' }, undefined, ORIGIN)).toEqual({ name: 'Demo Academy', theme: NEUTRAL_THEME });
  });

  it('takes the colors, the font and an acceptable logo with alt text', () => {
    const branding = toBranding(
      { name: 'Demo Academy' },
      { primary_color: '#4f46e5', font_family: 'Inter', logo_url: 'https://cdn.example.com/logo.png' },
      ORIGIN,
    );
    expect(branding.theme.brand).toBe('#4f46e5');
    expect(branding.theme.font).toMatch(/^"Inter", /);
    expect(branding.logo).toEqual({ url: 'https://cdn.example.com/logo.png', alt: 'Demo Academy logo', cspSource: 'https://cdn.example.com' });
    expect(toBranding({ name: 'Demo Academy' }, { logo_url: 'http://tracker.example/p.gif' }, ORIGIN).logo).toBeUndefined();
  });
});
