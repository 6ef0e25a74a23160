import { Logger, type LoggerService } from '@nestjs/common';
import Fastify from 'fastify';
import {
  InsufficientScopeError,
  InvalidClientError,
  InvalidGrantError,
  InvalidTokenError,
  ServerError,
  TemporarilyUnavailableError,
  TooManyRequestsError,
} from './oauth-error';
import { sendOAuthError } from './oauth-exception.filter';

const FRAME = /\n\s+at /;

describe('stack traces', () => {
  it.each([
    ['invalid_client', () => new InvalidClientError()],
    ['invalid_grant', () => new InvalidGrantError('The authorization code is invalid', 'replayed')],
    ['invalid_token', () => new InvalidTokenError('The access token is invalid')],
    ['insufficient_scope', () => new InsufficientScopeError(['students:read'])],
    ['too_many_requests', () => new TooManyRequestsError(30)],
    ['temporarily_unavailable', () => new TemporarilyUnavailableError()],
  ])('an expected %s error is built without one', (_code, make) => {
    const error = make();
    expect(error).toBeInstanceOf(Error);
    expect(error.stack ?? '').not.toMatch(FRAME);
    expect(error.name).toBe(error.constructor.name);
  });

  it('leave the process setting as it was', () => {
    const before = Error.stackTraceLimit;
    new InvalidGrantError('x');
    new ServerError('y');
    expect(Error.stackTraceLimit).toBe(before);
    expect(new Error('plain').stack).toMatch(FRAME);
  });

  it('are kept by a server_error, which nobody expected', () => {
    expect(new ServerError('the thing broke').stack).toMatch(FRAME);
  });
});

describe('sendOAuthError logging', () => {
  const logged: { level: string; message: unknown; trace?: unknown }[] = [];
  const collector: LoggerService = {
    log: (message) => void logged.push({ level: 'log', message }),
    warn: (message) => void logged.push({ level: 'warn', message }),
    debug: (message) => void logged.push({ level: 'debug', message }),
    verbose: (message) => void logged.push({ level: 'verbose', message }),
    error: (message, trace) => void logged.push({ level: 'error', message, trace }),
  };

  beforeAll(() => Logger.overrideLogger(collector));
  afterAll(() => Logger.overrideLogger(['error', 'warn', 'log']));
  beforeEach(() => (logged.length = 0));

  async function answer(thrown: () => unknown) {
    const app = Fastify();
    app.get('/', async (_request, reply) => sendOAuthError(reply, thrown()));
    const response = await app.inject({ method: 'GET', url: '/' });
    await app.close();
    return response;
  }

  it('logs the stack of an unexpected Error behind a server_error, and never returns it', async () => {
    const response = await answer(() => new TypeError('x is undefined'));
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toMatch(/\bat\b|TypeError/);
    const line = logged.find((entry) => entry.level === 'error');
    expect(line?.message).toBe('server_error: TypeError: x is undefined');
    expect(String(line?.trace)).toMatch(/^TypeError: x is undefined\n\s+at /);
  });

  it('logs an expected error at debug, without a trace', async () => {
    const response = await answer(() => new InvalidGrantError('The authorization code is invalid', 'code replayed'));
    expect(response.statusCode).toBe(400);
    expect(logged).toEqual([{ level: 'debug', message: 'invalid_grant: code replayed' }]);
  });
});
