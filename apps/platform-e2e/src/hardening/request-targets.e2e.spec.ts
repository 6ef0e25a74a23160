/**
 * Request targets that are not origin-form (RFC 9112 §3.2), through the one origin: the
 * asterisk-form (`*`), CONNECT's authority-form and the absolute-form. No HTTP client library
 * sends these, so each request line is written by hand on a socket of its own.
 *
 * The origin may be the gateway the global setup starts (it knows PUBLIC_BASE_URL) or a stack
 * named by E2E_BASE_URL (the compose gateway, or nginx from docker-compose.nginx.yml, which go
 * by the Host the client sends): what each case asserts holds for all of them.
 */
import { connect } from 'node:net';
import { baseUrl } from '../support/platform';

interface RawAnswer {
  status: number;
  head: string;
  body: string;
}

/** Sends one request line with a Host and `Connection: close`, reads until the origin closes (at most 5 s). */
function raw(requestLine: string, host = new URL(baseUrl()).host): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl());
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => socket.write(`${requestLine}\r\nHost: ${host}\r\nConnection: close\r\n\r\n`));
    let answer = '';
    const timer = setTimeout(() => socket.destroy(), 5_000);
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('close', () => {
      clearTimeout(timer);
      const split = answer.indexOf('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(answer)?.[1] ?? 0), head: split < 0 ? answer : answer.slice(0, split), body: split < 0 ? '' : answer.slice(split + 4) });
    });
    socket.on('error', reject);
  });
}

/** The origin's own JSON refusal: invalid_request, not cached, with a request id. */
function expectRefusal(answer: RawAnswer, statuses: number[]): void {
  expect(statuses).toContain(answer.status);
  expect(answer.head).toMatch(/\r\ncontent-type: application\/json/i);
  expect(answer.head).toMatch(/\r\ncache-control: no-store/i);
  expect(answer.head).toMatch(/\r\nx-request-id: \S+/i);
  expect(JSON.parse(answer.body)).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
}

describe('request targets that are not origin-form', () => {
  it.each([['GET *'], ['OPTIONS *'], ['POST *']])('%s: 400 invalid_request (it was a 502 server_error)', async (start) => {
    expectRefusal(await raw(`${start} HTTP/1.1`), [400]);
  });

  it('CONNECT: 400 invalid_request (it was a connection closed with no answer): the origin is no tunnel', async () => {
    expectRefusal(await raw('CONNECT 127.0.0.1:22 HTTP/1.1', '127.0.0.1:22'), [400]);
  });

  it('absolute-form naming this origin: served as its path, by the service that path belongs to', async () => {
    // It was routed by the whole target, to the resource server (a 404), and forwarded as it came.
    const answer = await raw(`GET ${baseUrl()}/.well-known/oauth-authorization-server HTTP/1.1`);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ issuer: expect.any(String), token_endpoint: expect.any(String) });
  });

  it('absolute-form naming another host: refused, never forwarded (421 where the origin knows PUBLIC_BASE_URL, 400 where it goes by the Host)', async () => {
    expectRefusal(await raw('GET http://evil.test/.well-known/oauth-authorization-server HTTP/1.1'), [400, 421]);
  });

  it.each([
    ['another scheme', 'GET ftp://evil.test/x HTTP/1.1'],
    ['the server-wide OPTIONS in absolute-form (RFC 9112 §3.2.4)', `OPTIONS ${baseUrl()} HTTP/1.1`],
  ])('absolute-form with %s: 400', async (_why, requestLine) => {
    expectRefusal(await raw(requestLine), [400]);
  });

  it('no Strict-Transport-Security over this plain-HTTP origin (RFC 6797 §7.2)', async () => {
    const answer = await raw('GET * HTTP/1.1');
    expect(new URL(baseUrl()).protocol).toBe('http:');
    expect(answer.head).not.toMatch(/\r\nstrict-transport-security:/i);
  });
});
