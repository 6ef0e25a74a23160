import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createTestTls, type TestTls } from '../../../tools/test-support/test-tls';
import { OutboundError, type OutboundLimits, postOutbound } from './outbound-post';

let tls: TestTls;
let server: Server;
let port: number;
let requests: { method?: string; body: string; headers: Record<string, unknown> }[] = [];
let answer: (response: import('node:http').ServerResponse) => void;

beforeAll(async () => {
  tls = createTestTls(['localhost', '127.0.0.1']);
  server = createServer({ key: tls.serverKey, cert: tls.serverCert }, (request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      requests.push({ method: request.method, body, headers: request.headers });
      answer(response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  tls.cleanup();
});

beforeEach(() => {
  requests = [];
  answer = (response) => response.writeHead(204).end();
});

const loopback = (overrides: Partial<OutboundLimits> = {}): OutboundLimits => ({
  timeoutMs: 2_000,
  maxResponseBytes: 4_096,
  allowSpecialUseAddresses: true,
  extraCaCertificates: tls.caCert,
  ...overrides,
});
const payload = { headers: { 'content-type': 'application/json' }, body: '{"hello":"world"}' };
const problemOf = (promise: Promise<unknown>) => promise.then(() => 'answered', (error: OutboundError) => error.problem);

describe('postOutbound', () => {
  it('posts the body and resolves with the status and headers', async () => {
    answer = (response) => response.writeHead(500, { 'retry-after': '7' }).end('oops');
    const result = await postOutbound(new URL(`https://localhost:${port}/hook`), payload, loopback());
    expect(result.status).toBe(500);
    expect(result.headers['retry-after']).toBe('7');
    expect(requests).toEqual([expect.objectContaining({ method: 'POST', body: '{"hello":"world"}' })]);
  });

  it('follows no redirect: a 3xx is the answer', async () => {
    answer = (response) => response.writeHead(307, { location: 'https://169.254.169.254/' }).end();
    expect((await postOutbound(new URL(`https://localhost:${port}/hook`), payload, loopback())).status).toBe(307);
    expect(requests).toHaveLength(1);
  });

  it('reads at most maxResponseBytes of an answer, then hangs up', async () => {
    answer = (response) => {
      response.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const write = () => {
        while (!response.destroyed && response.write(chunk));
        if (!response.destroyed) response.once('drain', write);
      };
      write();
    };
    expect((await postOutbound(new URL(`https://localhost:${port}/big`), payload, loopback())).status).toBe(200);
  });

  it('gives up after timeoutMs when no answer comes', async () => {
    answer = () => undefined;
    expect(await problemOf(postOutbound(new URL(`https://localhost:${port}/slow`), payload, loopback({ timeoutMs: 300 })))).toBe('timeout');
  });

  it('refuses http, special-use literals and names resolving to special-use addresses, without connecting', async () => {
    const strict = loopback({ allowSpecialUseAddresses: false });
    expect(await problemOf(postOutbound(new URL(`http://example.com/hook`), payload, strict))).toBe('not-https');
    expect(await problemOf(postOutbound(new URL(`https://127.0.0.1:${port}/hook`), payload, strict))).toBe('special-use-address');
    expect(await problemOf(postOutbound(new URL(`https://[::1]:${port}/hook`), payload, strict))).toBe('special-use-address');
    const rebinding = loopback({
      allowSpecialUseAddresses: false,
      resolver: (_name, callback) => callback(null, [{ address: '93.184.216.34', family: 4 }, { address: '127.0.0.1', family: 4 }]),
    });
    expect(await problemOf(postOutbound(new URL(`https://hooks.example:${port}/hook`), payload, rebinding))).toBe('special-use-address');
    expect(requests).toEqual([]);
  });
});
