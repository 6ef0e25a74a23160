import { BadRequestException, NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { InvalidGrantError } from './oauth-error';
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
    ['a wrapped database outage', new Error('query failed', { cause: { code: 'P1001' } }), 503, 'temporarily_unavailable'],
    ['an exhausted pg pool (raw SQL on the shared pool)', new Error('timeout exceeded when trying to connect'), 503, 'temporarily_unavailable'],
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
});
