import { Readable } from 'node:stream';
import { mayRetry } from './forward';

const code = (value: string) => Object.assign(new Error(value), { code: value });
/** undici wraps the socket's error: the code may sit on the cause. */
const wrapped = (value: string) => Object.assign(new Error('fetch failed'), { cause: code(value) });

describe('mayRetry: which failed attempts go to another replica', () => {
  it.each(['ECONNREFUSED', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT', 'ENOTFOUND', 'UND_ERR_CLOSED'])(
    'anything when nothing was sent (%s), POSTs with a body not yet read included',
    (failure) => {
      expect(mayRetry(code(failure), 'POST', Readable.from(['{"a":1}']))).toBe(true);
      expect(mayRetry(wrapped(failure), 'DELETE', undefined)).toBe(true);
    },
  );

  it.each(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE'])('after the connection broke once the request went out (%s): safe methods only', (failure) => {
    expect(mayRetry(code(failure), 'GET', undefined)).toBe(true);
    expect(mayRetry(code(failure), 'HEAD', undefined)).toBe(true);
    // RFC 9110 §9.2.2: the replica may have acted on it.
    expect(mayRetry(code(failure), 'POST', '{"a":1}')).toBe(false);
    expect(mayRetry(code(failure), 'PATCH', undefined)).toBe(false);
    expect(mayRetry(code(failure), 'DELETE', undefined)).toBe(false);
  });

  it('never once the body has started streaming to a replica', () => {
    const body = Readable.from(['part one', 'part two']);
    body.read();
    expect(mayRetry(code('ECONNREFUSED'), 'POST', body)).toBe(false);
  });

  it('never for a failure that is an answer in the making (a timeout), nor for one it does not know', () => {
    expect(mayRetry(code('UND_ERR_HEADERS_TIMEOUT'), 'GET', undefined)).toBe(false);
    expect(mayRetry(new Error('something else'), 'GET', undefined)).toBe(false);
  });
});
