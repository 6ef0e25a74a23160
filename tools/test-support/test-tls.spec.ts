import { existsSync } from 'node:fs';
import { get } from 'node:https';
import { join } from 'node:path';
import { createTestTls, loadTestTls, TlsDocumentServer, type TestTls } from './test-tls';

function fetchOver(url: string, ca?: string): Promise<{ status: number; type?: string; body: string }> {
  return new Promise((resolve, reject) => {
    get(url, ca ? { ca } : {}, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, type: response.headers['content-type'], body }));
    }).on('error', reject);
  });
}

describe('test TLS (createTestTls + TlsDocumentServer)', () => {
  let tls: TestTls;
  let server: TlsDocumentServer;

  beforeAll(async () => {
    tls = createTestTls(['127.0.0.1', 'localhost']);
    server = await new TlsDocumentServer(tls).start();
  });

  afterAll(async () => {
    await server.stop();
    tls.cleanup();
  });

  it('serves a document by path to a client that trusts the test CA, for an IP and a DNS name', async () => {
    const url = server.json('/client.json', (self: string) => ({ client_id: self }));
    expect(url).toBe(`https://127.0.0.1:${server.port}/client.json`);
    const answer = await fetchOver(url, tls.caCert);
    expect(answer).toEqual({ status: 200, type: 'application/json', body: JSON.stringify({ client_id: url }) });
    expect((await fetchOver(`https://localhost:${server.port}/nothing`, tls.caCert)).status).toBe(404);
    expect(server.hitCount('/client.json')).toBe(1);
  });

  it('is not trusted by a client that was not told about the test CA', async () => {
    await expect(fetchOver(server.url('/client.json'))).rejects.toThrow(/self[- ]signed|unable to (get|verify)/i);
  });

  it('loadTestTls reads the same files back; the CA key is not kept', () => {
    const again = loadTestTls(tls.dir);
    expect(again.caCert).toBe(tls.caCert);
    expect(again.serverKey).toBe(tls.serverKey);
    expect(existsSync(join(tls.dir, 'ca.key'))).toBe(false);
    expect(() => loadTestTls(`${tls.dir}-missing`)).toThrow(/missing/);
  });
});
