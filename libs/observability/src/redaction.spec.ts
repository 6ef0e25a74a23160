import { censor, pathOf, REDACTED } from './redaction';

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
