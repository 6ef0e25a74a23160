import { toGatewayError } from './upstream-error';

const withCause = (code: string, statusCode = 500) => Object.assign(new Error('boom'), { statusCode, cause: { code } });

describe('toGatewayError', () => {
  it.each(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT'])('maps %s to 503', (code) => {
    expect(toGatewayError(withCause(code), 'auth-server')).toEqual({
      statusCode: 503,
      body: { error: 'temporarily_unavailable', error_description: 'The auth-server is not reachable; try again shortly.' },
    });
  });

  it('maps a timeout to 504', () => {
    expect(toGatewayError(Object.assign(new Error('late'), { statusCode: 504 }), 'x').statusCode).toBe(504);
  });

  it.each(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'])("maps undici's %s to 504", (code) => {
    expect(toGatewayError(Object.assign(new Error('late'), { code }), 'auth-server')).toEqual({
      statusCode: 504,
      body: { error: 'temporarily_unavailable', error_description: 'The auth-server did not answer in time.' },
    });
  });

  it('maps anything else to 502 server_error', () => {
    expect(toGatewayError(withCause('ECONNRESET'), 'resource-server')).toEqual({
      statusCode: 502,
      body: { error: 'server_error', error_description: 'The resource-server failed to answer the request.' },
    });
    expect(toGatewayError(undefined, 'x').statusCode).toBe(502);
  });
});
