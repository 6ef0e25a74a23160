import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A TCP port free on 127.0.0.1 right now (the one copy for TypeScript; tools/platform/free-port.mjs has the scripts'). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
