import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The native app's side of RFC 8252 §7.3: a loopback HTTP server that receives the
 * authorization response, so that the browser lands on a real page as it would for a person.
 */
export class LoopbackCallback {
  /** Every authorization response the browser delivered, as absolute URLs. */
  readonly received: URL[] = [];
  private server?: Server;
  private origin = '';

  get redirectUri(): string {
    return `${this.origin}/callback`;
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const url = new URL(request.url ?? '/', this.origin);
      // Anything else is the browser's own business (e.g. /favicon.ico), not a response.
      if (url.pathname !== '/callback') {
        response.writeHead(404).end();
        return;
      }
      this.received.push(url);
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      response.end('<!doctype html><html lang="en"><title>Signed in</title><h1>You can close this window</h1></html>');
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.origin = `http://127.0.0.1:${port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.server) return resolve();
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }
}
