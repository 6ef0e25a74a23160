import { censor, censoredHeaders, pathOf, REDACT_PATHS, REDACTED } from './redaction';

describe('pathOf', () => {
  it.each([
    ['/oauth/authorize?client_id=a&state=s&code_challenge=c', '/oauth/authorize'],
    ['/api/v1/courses', '/api/v1/courses'],
    ['/cb#access_token=x', '/cb'],
    ['http://127.0.0.1:8765/callback?code=abc&iss=x', 'http://127.0.0.1:8765/callback'],
    [undefined, ''],
  ])('%s → %s', (target, path) => {
    expect(pathOf(target)).toBe(path);
  });
});

describe('censor', () => {
  it('keeps where a redirect goes and drops its query (the code and state)', () => {
    expect(censor('http://127.0.0.1:8765/callback?code=abc&state=s', ['res', 'headers', 'location'])).toBe(
      `http://127.0.0.1:8765/callback?${REDACTED}`,
    );
    expect(censor('/oauth/authorize/login', ['res', 'headers', 'location'])).toBe('/oauth/authorize/login');
  });

  it('replaces credentials entirely', () => {
    expect(censor('Bearer abc', ['req', 'headers', 'authorization'])).toBe(REDACTED);
    expect(censor(['sid=1; HttpOnly'], ['res', 'headers', 'set-cookie'])).toBe(REDACTED);
  });
});

describe('censoredHeaders', () => {
  it('copies request headers with the credentials replaced, leaving the live object alone', () => {
    const live = { authorization: 'Basic c2VjcmV0', 'proxy-authorization': 'Basic eA==', cookie: 'sid=1', accept: '*/*' };
    expect(censoredHeaders('req', live)).toEqual({ authorization: REDACTED, 'proxy-authorization': REDACTED, cookie: REDACTED, accept: '*/*' });
    expect(live.authorization).toBe('Basic c2VjcmV0');
  });

  it('keeps where a response redirects, without its query, and drops its cookies', () => {
    expect(censoredHeaders('res', { location: 'http://127.0.0.1:8765/cb?code=abc', 'set-cookie': ['sid=1'], 'cache-control': 'no-store' })).toEqual({
      location: `http://127.0.0.1:8765/cb?${REDACTED}`,
      'set-cookie': REDACTED,
      'cache-control': 'no-store',
    });
  });

  it('censors what the pino redact paths name', () => {
    expect(REDACT_PATHS).toEqual([
      'req.headers.authorization',
      'req.headers["proxy-authorization"]',
      'req.headers.cookie',
      'res.headers["set-cookie"]',
      'res.headers.location',
    ]);
  });
});
