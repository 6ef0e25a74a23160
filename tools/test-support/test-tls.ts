import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Files of a test TLS setup, in one directory: ca.crt, server.crt, server.key. */
export interface TestTls {
  dir: string;
  /** The test certificate authority (PEM): trusted by the test configuration only. */
  caFile: string;
  caCert: string;
  /** A server certificate for the names given at creation, signed by the test CA. */
  serverCert: string;
  serverKey: string;
  /** Removes the directory. */
  cleanup(): void;
}

const FILES = { ca: 'ca.crt', caKey: 'ca.key', cert: 'server.crt', key: 'server.key' } as const;

/**
 * A throw-away certificate authority and one server certificate for `names` (host names and
 * IP addresses, e.g. `['127.0.0.1', 'localhost']`), made with the openssl CLI into `dir` (a new
 * temporary directory by default). Nothing is added to any system trust store: only a process
 * told about `caFile` (CIMD_EXTRA_CA_FILE for the auth server) trusts it.
 */
export function createTestTls(names: readonly string[], dir = mkdtempSync(join(tmpdir(), 'test-tls-'))): TestTls {
  if (names.length === 0) throw new Error('createTestTls needs at least one name');
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl('req', '-x509', ...ec, '-days', '2', '-subj', '/CN=Test CA (tests only)', '-keyout', file(FILES.caKey),
    '-out', file(FILES.ca), '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  openssl('req', ...ec, '-subj', `/CN=${names[0]}`, '-keyout', file(FILES.key), '-out', file('server.csr'));
  const subjectAltNames = names.map((name) => (isIP(name) ? `IP:${name}` : `DNS:${name}`)).join(',');
  writeFileSync(
    file('server.ext'),
    ['basicConstraints=CA:FALSE', 'keyUsage=critical,digitalSignature', 'extendedKeyUsage=serverAuth', `subjectAltName=${subjectAltNames}`].join('\n'),
  );
  openssl('x509', '-req', '-in', file('server.csr'), '-CA', file(FILES.ca), '-CAkey', file(FILES.caKey), '-CAcreateserial',
    '-days', '2', '-extfile', file('server.ext'), '-out', file(FILES.cert));
  // The CA's key is not needed again: the one server certificate is all the tests serve.
  rmSync(file(FILES.caKey));
  return loadTestTls(dir);
}

/** The files createTestTls wrote into `dir` (e.g. in a jest worker, named by an environment variable). */
export function loadTestTls(dir: string): TestTls {
  const file = (name: string) => join(dir, name);
  for (const name of [FILES.ca, FILES.cert, FILES.key]) {
    if (!existsSync(file(name))) throw new Error(`${file(name)} is missing: not a directory made by createTestTls`);
  }
  return {
    dir,
    caFile: file(FILES.ca),
    caCert: readFileSync(file(FILES.ca), 'utf8'),
    serverCert: readFileSync(file(FILES.cert), 'utf8'),
    serverKey: readFileSync(file(FILES.key), 'utf8'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export type TlsHandler = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * A local https server with the test certificate, standing in for a client's web site: it
 * serves client ID metadata documents (or anything else) by path and counts the requests.
 */
export class TlsDocumentServer {
  private readonly routes = new Map<string, TlsHandler>();
  private readonly hits = new Map<string, number>();
  private server?: Server;
  port = 0;

  constructor(
    private readonly tls: Pick<TestTls, 'serverCert' | 'serverKey'>,
    /** The name the URLs use: one the certificate names. */
    readonly host = '127.0.0.1',
  ) {}

  async start(): Promise<this> {
    const server = createServer({ cert: this.tls.serverCert, key: this.tls.serverKey }, (request, response) => {
      const path = request.url ?? '/';
      this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
      const handler = this.routes.get(path);
      if (handler) handler(request, response);
      else response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
    return this;
  }

  /** https://<host>:<port><path> */
  url(path: string): string {
    return `https://${this.host}:${this.port}${path}`;
  }

  route(path: string, handler: TlsHandler): string {
    this.routes.set(path, handler);
    return this.url(path);
  }

  /** Serves `document` (or a function of the document's own URL) as application/json; returns the URL. */
  json(path: string, document: unknown, headers: Record<string, string> = {}): string {
    const url = this.url(path);
    const body = JSON.stringify(typeof document === 'function' ? (document as (url: string) => unknown)(url) : document);
    return this.route(path, (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', ...headers }).end(body);
    });
  }

  hitCount(path: string): number {
    return this.hits.get(path) ?? 0;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
