import { BadRequestException, NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { registerErrorClassifier } from './error-classifiers';
import { InvalidGrantError, InvalidRequestError, TemporarilyUnavailableError } from './oauth-error';
import { toOAuthError } from './to-oauth-error';

describe('toOAuthError', () => {
  it('passes OAuth errors through', () => {
    const error = new InvalidGrantError('bad code');
    expect(toOAuthError(error)).toBe(error);
  });

  it.each([
    ['a missing route', new NotFoundException(), 404, 'not_found'],
    ['a too large body', new PayloadTooLargeException(), 413, 'invalid_request'],
    ['a framework 400', new BadRequestException('Body is not valid JSON'), 400, 'invalid_request'],
    ['a Fastify media type error', Object.assign(new Error('Unsupported Media Type: text/xml'), { statusCode: 415, code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' }), 415, 'invalid_request'],
    ['a database outage', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }), 503, 'temporarily_unavailable'],
    ['a wrapped unreachable peer', new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNRESET'), { code: 'ECONNRESET' }) }), 503, 'temporarily_unavailable'],
    ['anything else', new TypeError('x is undefined'), 500, 'server_error'],
  ])('maps %s to %s %s', (_name, thrown, status, code) => {
    const error = toOAuthError(thrown);
    expect(error.status).toBe(status);
    expect(error.error).toBe(code);
  });

  it('never puts the internal message of an unexpected error into the body', () => {
    const body = toOAuthError(new Error('SELECT * FROM users WHERE password_hash = ...')).toBody();
    expect(JSON.stringify(body)).not.toContain('SELECT');
    expect(body).toEqual({ error: 'server_error', error_description: 'The server encountered an unexpected condition' });
  });

  describe('with a registered classifier (the data layer\'s codes live in libs/database-errors)', () => {
    const outage = Object.assign(new Error('the store is down'), { code: 'STORE_DOWN' });
    const badText = Object.assign(new Error('the store refuses this text'), { code: 'STORE_BAD_TEXT' });
    let unregister: (() => void) | undefined;

    afterEach(() => unregister?.());

    it('knows no data-layer code of its own: without a classifier they are server errors', () => {
      expect(toOAuthError(new Error('query failed', { cause: { code: 'P1001' } })).error).toBe('server_error');
      expect(toOAuthError(Object.assign(new Error('invalid byte sequence'), { code: '22021' })).error).toBe('server_error');
      expect(toOAuthError(outage).error).toBe('server_error');
    });

    it('answers what the classifier says, and leaves the rest to the usual mapping', () => {
      const seen: unknown[] = [];
      unregister = registerErrorClassifier((error) => {
        seen.push(error);
        if (error === outage) return new TemporarilyUnavailableError(undefined, 'store down');
        if (error === badText) return new InvalidRequestError('The request contains characters that are not allowed');
        return undefined;
      });
      expect(toOAuthError(outage)).toMatchObject({ status: 503, error: 'temporarily_unavailable', internalDetail: 'store down' });
      expect(toOAuthError(badText)).toMatchObject({ status: 400, error: 'invalid_request' });
      expect(toOAuthError(new NotFoundException()).error).toBe('not_found');
      expect(toOAuthError(new TypeError('x is undefined')).error).toBe('server_error');
      // OAuth errors pass through before any classifier is asked.
      const oauth = new InvalidGrantError('bad code');
      expect(toOAuthError(oauth)).toBe(oauth);
      expect(seen).not.toContain(oauth);
    });

    it('asks each registered classifier once, in order, and forgets one that is unregistered', () => {
      const first = jest.fn(() => undefined);
      const second = jest.fn(() => new TemporarilyUnavailableError());
      const unregisterFirst = registerErrorClassifier(first);
      unregister = registerErrorClassifier(second);
      registerErrorClassifier(first); // the same function again: still once
      expect(toOAuthError(outage).error).toBe('temporarily_unavailable');
      expect(first).toHaveBeenCalledTimes(1);
      expect(second).toHaveBeenCalledTimes(1);
      unregisterFirst();
      unregister();
      expect(toOAuthError(outage).error).toBe('server_error');
    });
  });
});
