import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LookupAddress } from 'node:dns';
import type { Resolver } from '../../../src/client-metadata-documents';
import type { TestCertificates } from './test-ca';

export type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * One local https server standing in for every client's web site (claude.ai, vscode.dev,
 * cursor.com...): the test resolver maps those names to 127.0.0.1, the certificate (from the
 * test CA) names them all, and each request is routed by Host and path.
 */
export class DocumentHost {
  private readonly routes = new Map<string, Handler>();
  /** Requests received per `host/path`. */
  readonly hits = new Map<string, number>();
  port = 0;
  private server?: Server;

  constructor(private readonly certificates: TestCertificates) {}

  async start(): Promise<this> {
    this.server = createServer({ cert: this.certificates.serverCert, key: this.certificates.serverKey }, (request, response) => {
      const key = `${(request.headers.host ?? '').split(':')[0]}${request.url ?? ''}`;
      this.hits.set(key, (this.hits.get(key) ?? 0) + 1);
      const handler = this.routes.get(key);
      if (handler) handler(request, response);
      else response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
    return this;
  }

  /** https://<host>:<port><path> */
  url(host: string, path: string): string {
    return `https://${host}:${this.port}${path}`;
  }

  route(host: string, path: string, handler: Handler): string {
    this.routes.set(`${host}${path}`, handler);
    return this.url(host, path);
  }

  /** Serves `document` (an object, or a function of the URL) as application/json. */
  json(host: string, path: string, document: unknown, headers: Record<string, string> = {}): string {
    const url = this.url(host, path);
    const body = JSON.stringify(typeof document === 'function' ? (document as (url: string) => unknown)(url) : document);
    return this.route(host, path, (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', ...headers }).end(body);
    });
  }

  hitCount(host: string, path: string): number {
    return this.hits.get(`${host}${path}`) ?? 0;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** A DNS stand-in: names to addresses, no real DNS; an unknown name fails like NXDOMAIN. */
export function mappedResolver(names: Record<string, string | string[]>): Resolver {
  return (hostname, callback) => {
    const entry = names[hostname];
    if (!entry) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
    const addresses: LookupAddress[] = (Array.isArray(entry) ? entry : [entry]).map((address) => ({
      address,
      family: address.includes(':') ? 6 : 4,
    }));
    callback(null, addresses);
  };
}
