import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  path: string;
  headers: IncomingHttpHeaders;
  /** The exact bytes received, as text: what the signature covers. */
  rawBody: string;
}

/** How the receiver answers the n-th delivery to a path (0-based); 204 when none is set. */
export type Answer = (response: ServerResponse, attempt: number) => void;

/**
 * A webhook endpoint for tests: an https server on the loopback with a test certificate (the
 * platform trusts its CA through WEBHOOK_EXTRA_CA_FILE and may deliver to loopback only with
 * WEBHOOK_ALLOW_SPECIAL_USE_HOSTS, both refused in production). It keeps every delivery and
 * answers as told, per path.
 */
export class WebhookReceiver {
  readonly deliveries: ReceivedDelivery[] = [];
  private readonly answers = new Map<string, Answer>();
  private server?: Server;
  private port = 0;

  constructor(private readonly tls: { serverCert: string; serverKey: string }) {}

  async start(): Promise<this> {
    const server = createServer({ cert: this.tls.serverCert, key: this.tls.serverKey }, (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const path = request.url ?? '/';
        const attempt = this.deliveries.filter((delivery) => delivery.path === path).length;
        this.deliveries.push({ path, headers: request.headers, rawBody: Buffer.concat(chunks).toString('utf8') });
        const answer = this.answers.get(path) ?? ((res: ServerResponse) => res.writeHead(204).end());
        answer(response, attempt);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  /** The endpoint's URL for `path`, answered by `answer`. */
  endpoint(path: string, answer?: Answer): string {
    if (answer) this.answers.set(path, answer);
    return `https://127.0.0.1:${this.port}${path}`;
  }

  to(path: string): ReceivedDelivery[] {
    return this.deliveries.filter((delivery) => delivery.path === path);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}
