import Fastify, { type FastifyInstance } from 'fastify';
import { request as httpRequest } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { frameworkErrorOptions } from './framework-errors';

/** Sends raw bytes, returns the raw answer: status line, headers and the parsed JSON body. */
function raw(port: number, request: string): Promise<{ head: string; body: unknown }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(request));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('close', () => {
      const split = answer.indexOf('\r\n\r\n');
      resolve({ head: answer.slice(0, split), body: JSON.parse(answer.slice(split + 4)) });
    });
    socket.on('error', reject);
  });
}

describe('frameworkErrorOptions', () => {
  let app: FastifyInstance;
  let port: number;

  beforeAll(async () => {
    app = Fastify({ routerOptions: { maxParamLength: 20 }, ...frameworkErrorOptions });
    app.get('/items/:id', async () => ({ ok: true }));
    app.delete('/items/:id', async () => ({ ok: true }));
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as AddressInfo).port;
  });

  afterAll(() => app.close());

  it.each([
    ['a path that is not valid UTF-8', 'GET /items/%C0%AF HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 400, 'The request path is not valid percent-encoded UTF-8'],
    ['a path parameter over maxParamLength', `GET /items/${'9'.repeat(30)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, 414, 'A path segment is too long'],
    ['headers over 16 KiB', `GET /items/1 HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`, 431, 'The request headers are too large'],
    ['bytes that are not HTTP', 'NOT HTTP AT ALL\r\n\r\n', 400, 'The request is not valid HTTP'],
  ])('%s: RFC 6749 §5.2 body with its status, nothing of the input echoed', async (_name, request, status, description) => {
    const { head, body } = await raw(port, request);
    expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(head).toMatch(/\r\ncontent-type: application\/json/i);
    expect(head).toMatch(/\r\ncache-control: no-store/i);
    expect(body).toEqual({ error: 'invalid_request', error_description: description });
    expect(head).not.toContain('%C0%AF');
  });

  it('answers once when a refused request still has a body coming: no second answer after the first', async () => {
    // Node's parser meets the unread rest of the body after the 400 and reports a client error;
    // answering that too would put a second response after `Connection: close`.
    const attempt = () =>
      new Promise<number>((resolve, reject) => {
        const outgoing = httpRequest(`http://127.0.0.1:${port}/items/%FF`, { method: 'DELETE', headers: { 'content-type': 'application/json', connection: 'close' }, agent: false }, (incoming) => {
          incoming.resume();
          incoming.on('end', () => resolve(incoming.statusCode ?? 0));
        });
        outgoing.on('error', reject);
        outgoing.end(`{"a":"${'x'.repeat(70 * 1024)}"}`);
      });
    for (let i = 0; i < 20; i++) expect(await attempt()).toBe(400);
  });

  it('answers a refused request whose large body is still arriving, rather than resetting the connection under it', async () => {
    // An invalid header refuses the request at once, while the client is still sending 4 MB:
    // closing with that data unread resets the connection, and the client never reads the 400.
    const attempt = () =>
      new Promise<string>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.write('POST /items/1 HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b\r\nContent-Type: application/json\r\nContent-Length: 4194304\r\n\r\n');
          socket.end(Buffer.alloc(4 * 1024 * 1024, 'x'));
        });
        let answer = '';
        socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
        socket.on('error', (error: NodeJS.ErrnoException) => resolve(`error ${error.code}`));
        socket.on('close', () => resolve(answer.split('\r\n', 1)[0]));
      });
    for (let i = 0; i < 5; i++) expect(await attempt()).toBe('HTTP/1.1 400 Bad Request');
  });
});

