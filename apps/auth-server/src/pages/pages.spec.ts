import { type Branding, toBranding } from '../branding/branding';
import { contentSecurityPolicy, pageSecurityHeaders, PAGE_SECURITY_HEADERS } from './html-response';
import { renderConsentPage, renderErrorPage, renderLoginPage, describeScopes, imageSourcesOf } from './pages';

const HOSTILE = `"><script>alert(1)</script><img src=x onerror='x'>`;
const ORIGIN = 'http://127.0.0.1:3000';
const CONSENT = {
  clientName: 'CLI',
  redirectHost: '127.0.0.1:8765',
  scopes: ['openid'],
  userName: 'Dana Demo',
  userEmail: 'demo@academy.test',
  action: '/oauth/authorize/consent',
  csrfToken: 't',
  hidden: [],
} as const;

describe('pages', () => {
  it('escapes everything user-supplied on the login page', () => {
    const html = renderLoginPage({
      clientName: HOSTILE,
      action: '/oauth/authorize/login',
      csrfToken: 'tok',
      hidden: [['state', HOSTILE]],
      email: HOSTILE,
      error: 'Email or password is incorrect.',
    });
    expect(html).not.toContain('<script>');
    expect(html).not.toContain("onerror='x'");
    expect(html).toContain('&quot;&gt;&lt;script&gt;');
    expect(html).toContain('<input type="hidden" name="state" value="&quot;&gt;&lt;script&gt;');
  });

  it('gives the login page a language, a heading, labelled fields and the generic error', () => {
    const html = renderLoginPage({ clientName: 'CLI', action: '/x', csrfToken: 't', hidden: [], error: 'Email or password is incorrect.' });
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('<h1>Sign in</h1>');
    expect(html).toContain('<label for="email">Email</label>');
    expect(html).toContain('<input id="email" name="email" type="email"');
    expect(html).toContain('<label for="password">Password</label>');
    expect(html).toContain('role="alert"');
    expect(html).toContain('Course Platform');
    expect(html).not.toMatch(/<script/i);
  });

  it('lists the scopes in words, grouped, and names client, redirect host and school', () => {
    const html = renderConsentPage({
      clientName: 'Lesson Planner CLI',
      redirectHost: '127.0.0.1:8765',
      scopes: ['openid', 'email', 'students:read'],
      userName: 'Dana Demo',
      userEmail: 'demo@academy.test',
      schoolName: 'Demo Academy',
      action: '/oauth/authorize/consent',
      csrfToken: 't',
      hidden: [],
    });
    for (const text of [
      'Lesson Planner CLI wants to access your account',
      '127.0.0.1:8765',
      'Sign you in and know who you are',
      'See your email address',
      'See students and their enrollments',
      'Your identity',
      'People',
      'Demo Academy',
      'value="approve"',
      'value="deny"',
    ]) {
      expect(html).toContain(text);
    }
    expect(html).not.toContain('Courses and content');
  });

  it('shows offline_access as "stay signed in" (OpenID Connect Core §11)', () => {
    expect(describeScopes(['openid', 'offline_access'])).toEqual([
      {
        label: 'Your identity',
        scopes: [
          { name: 'openid', description: 'Sign you in and know who you are' },
          { name: 'offline_access', description: 'Stay signed in: keep access while you are away, until you revoke it' },
        ],
      },
    ]);
  });

  it('shows a write scope and the read scope it includes as one row, once', () => {
    expect(describeScopes(['orders:read', 'coupons:read', 'coupons:write'])).toEqual([
      {
        label: 'Sales and billing',
        scopes: [
          { name: 'orders:read', description: 'See orders and payments' },
          { name: 'coupons:read coupons:write', description: 'See coupons; create, edit and delete coupons' },
        ],
      },
    ]);
    // A write scope asked without its read scope (a refresh narrowed it, an old grant) reads as it is.
    expect(describeScopes(['coupons:write'])).toEqual([{ label: 'Sales and billing', scopes: [{ name: 'coupons:write', description: 'Create, edit and delete coupons' }] }]);
  });

  it('groups scopes in catalogue order', () => {
    expect(describeScopes(['students:read', 'openid', 'courses:read']).map((g) => g.label)).toEqual([
      'Your identity',
      'Courses and content',
      'People',
    ]);
  });

  it('associates an error with the form and both fields, and marks bad credentials invalid', () => {
    const html = renderLoginPage({ clientName: 'CLI', action: '/x', csrfToken: 't', hidden: [], error: 'Email or password is incorrect.', invalid: true });
    expect(html).toContain('<title>Error: Sign in · Course Platform</title>');
    expect(html).toContain('<form method="post" action="/x" aria-describedby="form-error">');
    expect(html).toMatch(/<input id="email"[^>]* aria-describedby="form-error" aria-invalid="true">/);
    expect(html).toMatch(/<input id="password"[^>]* aria-describedby="form-error" aria-invalid="true">/);
    const clean = renderLoginPage({ clientName: 'CLI', action: '/x', csrfToken: 't', hidden: [] });
    expect(clean).not.toContain('aria-describedby');
    expect(clean).not.toContain('aria-invalid');
    expect(clean).not.toContain('role="alert"');
  });

  it('leaves the email field empty on a first visit, even when given email: undefined', () => {
    const html = renderLoginPage({ clientName: 'CLI', action: '/x', csrfToken: 't', hidden: [], email: undefined });
    expect(html).toMatch(/<input id="email"[^>]* value="">/);
    expect(html).not.toContain('undefined');
  });

  it('puts email, password and the button in that order, and Deny before Approve', () => {
    const login = renderLoginPage({ clientName: 'CLI', action: '/x', csrfToken: 't', hidden: [] });
    const order = ['id="email"', 'id="password"', 'type="submit"'].map((marker) => login.indexOf(marker));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(login).not.toMatch(/tabindex|autofocus/);
    const consent = renderConsentPage({ ...CONSENT, scopes: ['openid'] });
    expect(consent.indexOf('value="deny"')).toBeLessThan(consent.indexOf('value="approve"'));
  });

  it("shows the school's name and colors, from validated values only", () => {
    const branding = toBranding({ name: 'Demo <Academy>' }, { primary_color: '#4f46e5', text_color: '#0f172a', font_family: 'Source Sans 3' }, ORIGIN);
    const html = renderLoginPage({ clientName: 'CLI', action: '/x', csrfToken: 't', hidden: [], branding });
    expect(html).toContain('<span>Demo &lt;Academy&gt;</span>');
    expect(html).toContain('<title>Sign in · Demo &lt;Academy&gt;</title>');
    expect(html).toMatch(/<body style="[^"]*--ink: #0f172a;[^"]*--brand: #4f46e5;[^"]*--font: &quot;Source Sans 3&quot;, system-ui/);
    expect(html).toContain('<span class="logo" aria-hidden="true">D</span>');
    expect(renderConsentPage({ ...CONSENT, branding })).toContain('--brand: #4f46e5');
  });

  it('shows a logo with alt text, and the page allows exactly its origin', () => {
    const branding = toBranding({ name: 'Demo Academy' }, { logo_url: 'https://cdn.example.com/logo.png?v="1"' }, ORIGIN);
    const html = renderConsentPage({ ...CONSENT, branding });
    expect(html).toContain('<img class="logo-image" src="https://cdn.example.com/logo.png?v=%221%22" alt="Demo Academy logo" height="40">');
    expect(imageSourcesOf(branding)).toEqual(['https://cdn.example.com']);
    expect(imageSourcesOf(toBranding({ name: 'Demo Academy' }, {}, ORIGIN))).toEqual([]);
  });

  it('escapes the error page', () => {
    const html = renderErrorPage({ description: HOSTILE, code: 'invalid_request' });
    expect(html).not.toContain('<script>');
    expect(html).toContain('invalid_request');
  });
});

describe('the pages\' Content-Security-Policy', () => {
  const STRICT =
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http://127.0.0.1:* http://localhost:* http://[::1]:*; frame-ancestors 'none'; base-uri 'none'";

  it('allows no images at all without a logo', () => {
    expect(contentSecurityPolicy()).toBe(STRICT);
    expect(pageSecurityHeaders([])).toBe(PAGE_SECURITY_HEADERS);
  });

  it("allows only the logo's origin for images, and changes nothing else", () => {
    const logo: Branding = toBranding({ name: 'Demo Academy' }, { logo_url: 'https://cdn.example.com/l.png' }, ORIGIN);
    const headers = pageSecurityHeaders(imageSourcesOf(logo));
    expect(headers['content-security-policy']).toBe(STRICT.replace("default-src 'none'; ", "default-src 'none'; img-src https://cdn.example.com; "));
    expect({ ...headers, 'content-security-policy': STRICT }).toEqual(PAGE_SECURITY_HEADERS);
  });
});
