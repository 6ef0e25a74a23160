import { renderConsentPage, renderErrorPage, renderLoginPage, describeScopes } from './pages';

const HOSTILE = `"><script>alert(1)</script><img src=x onerror='x'>`;

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

  it('groups scopes in catalogue order', () => {
    expect(describeScopes(['students:read', 'openid', 'courses:read']).map((g) => g.label)).toEqual([
      'Your identity',
      'Courses and content',
      'People',
    ]);
  });

  it('escapes the error page', () => {
    const html = renderErrorPage({ description: HOSTILE, code: 'invalid_request' });
    expect(html).not.toContain('<script>');
    expect(html).toContain('invalid_request');
  });
});
