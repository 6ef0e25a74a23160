import Fastify from 'fastify';
import type { AddressInfo } from 'node:net';
import { closeConnectionsWhenIdle } from './graceful-close';

describe('closeConnectionsWhenIdle', () => {
  it('lets a request in flight finish, then closes its kept-alive connection at once', async () => {
    const app = Fastify({ return503OnClosing: true });
    closeConnectionsWhenIdle(app);
    let closing = () => undefined as void;
    const closeBegan = new Promise<void>((resolve) => (closing = resolve));
    app.addHook('preClose', async () => closing());
    let release = () => undefined as void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let arrived = () => undefined as void;
    const started = new Promise<void>((resolve) => (arrived = resolve));
    app.get('/slow', async () => {
      arrived();
      await held;
      return { done: true };
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;

    const inFlight = fetch(`http://127.0.0.1:${port}/slow`);
    await started;
    const began = Date.now();
    const closed = app.close();
    await closeBegan;
    release();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(response.headers.get('connection')).toBe('close');
    expect(await response.json()).toEqual({ done: true });
    await closed;
    // Without it, close() waits for the keep-alive timeout (72 s by default).
    expect(Date.now() - began).toBeLessThan(2_000);
  });
});
