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

describe('OAuth errors', () => {
  it.each([
    [() => new InvalidClientError(), 'InvalidClientError', 'invalid_client', 401],
    [() => new InvalidGrantError('The authorization code is invalid', 'replayed'), 'InvalidGrantError', 'invalid_grant', 400],
    [() => new InvalidTokenError('The access token is invalid'), 'InvalidTokenError', 'invalid_token', 401],
    [() => new InsufficientScopeError(['students:read']), 'InsufficientScopeError', 'insufficient_scope', 403],
    [() => new TooManyRequestsError(30), 'TooManyRequestsError', 'too_many_requests', 429],
    [() => new TemporarilyUnavailableError(), 'TemporarilyUnavailableError', 'temporarily_unavailable', 503],
  ])('are Errors named after their class, with their code and status (%#)', (make, name, code, status) => {
    const error = make();
    expect(error).toBeInstanceOf(Error);
    expect([error.name, error.error, error.status]).toEqual([name, code, status]);
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

  it('logs a server_error with its own stack, and never returns it', async () => {
    const response = await answer(() => new ServerError('the thing broke'));
    expect(response.statusCode).toBe(500);
    expect(JSON.parse(response.body)).toEqual({ error: 'server_error', error_description: 'The server encountered an unexpected condition' });
    const line = logged.find((entry) => entry.level === 'error');
    expect(line?.message).toBe('server_error: the thing broke');
    expect(String(line?.trace)).toMatch(/^ServerError: The server encountered an unexpected condition\n\s+at /);
  });

  it('logs an expected error at debug, without a trace', async () => {
    const response = await answer(() => new InvalidGrantError('The authorization code is invalid', 'code replayed'));
    expect(response.statusCode).toBe(400);
    expect(logged).toEqual([{ level: 'debug', message: 'invalid_grant: code replayed' }]);
  });
});
