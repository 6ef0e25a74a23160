import { corsOptionsFor, PUBLIC_CORS } from './cors-policy';

describe('corsOptionsFor', () => {
  it.each([
    '/.well-known/oauth-authorization-server',
    '/.well-known/openid-configuration',
    '/.well-known/jwks.json',
    '/api/oauth/register',
    '/api/oauth/token',
    '/api/oauth/revoke',
    '/api/oauth/userinfo',
    '/api/oauth/userinfo?x=1',
  ])('opens %s to any origin, without credentials', (url) => {
    expect(corsOptionsFor(url)).toBe(PUBLIC_CORS);
    expect(PUBLIC_CORS).toMatchObject({ origin: '*', credentials: false });
  });

  it.each(['/oauth/authorize', '/oauth/authorize/login', '/oauth/authorize/consent', '/api/oauth/introspect', '/api/oauth/token/', '/healthz', '/metrics'])(
    'keeps %s closed',
    (url) => {
      expect(corsOptionsFor(url)).toEqual({ origin: false });
    },
  );
});
