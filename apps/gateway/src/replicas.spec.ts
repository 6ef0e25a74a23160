/**
 * Several replicas behind one name: stand-in services on 127.0.0.2, 127.0.0.3 and 127.0.0.4
 * (all this machine's loopback), one port, under host names the gateway resolves through a
 * hosts table of the test's (as swarm's `tasks.<service>` or a Kubernetes headless Service
 * would answer). Each request is balanced on its own; a replica that appears gets requests at
 * the next refresh; one that refuses connections or goes away costs no request.
 */
import { beginClosing, closeConnectionsWhenIdle } from '@platform/lifecycle';
import Fastify, { type FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { Agent, fetch } from 'undici';
import { createGateway } from './gateway';

jest.setTimeout(60_000);

interface Echo {
  replica: string;
  method: string;
  body: string;
}

/** A stand-in replica that closes as the services do: requests still reaching it are answered. */
async function startReplica(address: string, port: number): Promise<FastifyInstance> {
  const app = Fastify({ return503OnClosing: false });
  closeConnectionsWhenIdle(app);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  app.all('/*', async (request) => ({ replica: address, method: request.method, body: request.body ?? '' }));
  await app.listen({ host: address, port });
  return app;
}

const REPLICAS = ['127.0.0.2', '127.0.0.3', '127.0.0.4'];
const NAME = 'resource.replicas.test';
const REFRESH_MS = 50;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the gateway in front of several replicas', () => {
  let port: number;
  const replicas = new Map<string, FastifyInstance>();
  /** What the name resolves to now: the test edits it as an orchestrator would. */
  let hosts: Record<string, string[]>;
  /** How many times the gateway has asked for the name. */
  let lookups = 0;
  /**
   * Until the gateway has applied what the name resolves to now: a lookup that started after the
   * change has finished (lookups are one at a time, so a second one started). Waits on the
   * gateway's own refreshes, however late its timer fires on a busy machine.
   */
  const nameResolvedAgain = async (): Promise<void> => {
    const target = lookups + 2;
    while (lookups < target) await sleep(REFRESH_MS / 5);
  };
  let gateway: FastifyInstance;
  let origin: string;
  // A client that keeps its connections to the gateway alive, as browsers and agents do.
  const client = new Agent({ keepAliveTimeout: 10_000, connections: 64 });

  const send = async (method: 'GET' | 'POST', body?: string): Promise<{ status: number; echo?: Echo }> => {
    const response = await fetch(`${origin}/api/v1/courses`, {
      method,
      body,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      dispatcher: client,
    });
    const text = await response.text();
    return { status: response.status, echo: response.status === 200 ? (JSON.parse(text) as Echo) : undefined };
  };
  const replicaOf = (answer: { echo?: Echo }): string => {
    if (!answer.echo) throw new Error('no answer from a replica');
    return answer.echo.replica;
  };
  const running = (address: string): FastifyInstance => {
    const replica = replicas.get(address);
    if (!replica) throw new Error(`${address} is not running`);
    replicas.delete(address);
    return replica;
  };

  beforeAll(async () => {
    const first = await startReplica(REPLICAS[0], 0);
    port = (first.server.address() as AddressInfo).port;
    replicas.set(REPLICAS[0], first);
    replicas.set(REPLICAS[1], await startReplica(REPLICAS[1], port));
    hosts = { [NAME]: [REPLICAS[0], REPLICAS[1]] };
    gateway = await createGateway({
      upstreams: { 'auth-server': `http://127.0.0.2:${port}`, 'resource-server': `http://${NAME}:${port}` },
      dnsRefreshMs: REFRESH_MS,
      resolve: async (hostname) => {
        if (hostname === NAME) lookups += 1;
        const addresses = hosts[hostname];
        if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
        return addresses;
      },
    });
    await gateway.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(gateway.server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await gateway?.close();
    await client.close();
    await Promise.all([...replicas.values()].map((replica) => replica.close()));
  });

  it('balances each request, over kept-alive connections, across every address of the name', async () => {
    const served: Record<string, number> = {};
    for (let i = 0; i < 40; i++) {
      const answer = await send('GET');
      expect(answer.status).toBe(200);
      served[replicaOf(answer)] = (served[replicaOf(answer)] ?? 0) + 1;
    }
    expect(Object.keys(served).sort()).toEqual([REPLICAS[0], REPLICAS[1]]);
    // Round robin: neither gets most of them (one connection would have carried all 40).
    for (const count of Object.values(served)) expect(count).toBeGreaterThanOrEqual(15);
  });

  it('sends requests to a replica that appears from the next refresh of the name on', async () => {
    replicas.set(REPLICAS[2], await startReplica(REPLICAS[2], port));
    hosts[NAME] = [...REPLICAS];
    await nameResolvedAgain();
    const seen = new Set<string>();
    for (let i = 0; i < 30; i++) seen.add(replicaOf(await send('GET')));
    expect([...seen].sort()).toEqual(REPLICAS);
  });

  it('sends every request that a replica refuses (nothing listening) to another, POSTs with their bodies included', async () => {
    await running(REPLICAS[2]).close();
    // The name still lists the stopped replica: every request sent there is refused, and retried.
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? send('GET') : send('POST', JSON.stringify({ n: i })))),
    );
    expect(answers.filter((answer) => answer.status !== 200)).toEqual([]);
    answers.forEach((answer, i) => {
      expect(replicaOf(answer)).not.toBe(REPLICAS[2]);
      if (i % 2 === 1) expect(answer.echo).toMatchObject({ method: 'POST', body: JSON.stringify({ n: i }) });
    });
    hosts[NAME] = [REPLICAS[0], REPLICAS[1]];
    await nameResolvedAgain();
  });

  /** Requests from `loops` clients, one after the other each, until stopped: every status seen, and how many came after `mark()`. */
  function steadyLoad(loops: number, methods: ('GET' | 'POST')[]) {
    const statuses: number[] = [];
    let marked = Number.POSITIVE_INFINITY;
    let running = true;
    const all = Promise.all(
      Array.from({ length: loops }, async (_, loop) => {
        for (let i = 0; running; i++) {
          const method = methods[(loop + i) % methods.length];
          const { status } = await send(method, method === 'POST' ? `{"loop":${loop},"i":${i}}` : undefined).catch(() => ({ status: -1 }));
          statuses.push(status);
        }
      }),
    );
    return {
      statuses,
      mark: () => (marked = statuses.length),
      afterMark: () => statuses.length - marked,
      async stop() {
        running = false;
        await all;
      },
    };
  }

  it('loses no request, GET or POST, while a replica leaves the name and then stops (a rolling update)', async () => {
    replicas.set(REPLICAS[2], await startReplica(REPLICAS[2], port));
    hosts[NAME] = [...REPLICAS];
    await nameResolvedAgain();
    const load = steadyLoad(16, ['GET', 'POST']);
    await sleep(300);
    // The orchestrator withdraws it, the replica stops taking new work (not ready, every answer
    // closing its connection), and closes once the gateway has let it go.
    hosts[NAME] = [REPLICAS[0], REPLICAS[1]];
    const leaving = running(REPLICAS[2]);
    beginClosing(leaving);
    await nameResolvedAgain();
    await leaving.close();
    load.mark();
    await sleep(300);
    await load.stop();
    expect(load.afterMark()).toBeGreaterThan(0);
    expect(load.statuses.filter((status) => status !== 200)).toEqual([]);
  });

  it('loses no safe request while a replica still named stops abruptly under load', async () => {
    replicas.set(REPLICAS[2], await startReplica(REPLICAS[2], port));
    hosts[NAME] = [...REPLICAS];
    await nameResolvedAgain();
    const load = steadyLoad(16, ['GET']);
    await sleep(300);
    // No warning: its kept-alive connections are closed under the gateway, new ones refused.
    await running(REPLICAS[2]).close();
    load.mark();
    await sleep(300);
    await load.stop();
    expect(load.afterMark()).toBeGreaterThan(0);
    expect(load.statuses.filter((status) => status !== 200)).toEqual([]);
  });
});

describe('the gateway readiness', () => {
  it('stays ready when a service once reached stops answering (every gateway shares it), and fails from the moment its own shutdown begins', async () => {
    const auth = await startReplica('127.0.0.2', 0);
    const resource = await startReplica('127.0.0.3', 0);
    const url = (app: FastifyInstance) => `http://${(app.server.address() as AddressInfo).address}:${(app.server.address() as AddressInfo).port}`;
    const gateway = await createGateway({ upstreams: { 'auth-server': url(auth), 'resource-server': url(resource) } });
    try {
      expect((await gateway.inject({ url: '/readyz' })).statusCode).toBe(200);
      await auth.close();
      const degraded = await gateway.inject({ url: '/readyz' });
      expect(degraded.statusCode).toBe(200);
      expect(degraded.json()).toMatchObject({ status: 'ok', info: { 'auth-server': { status: 'up', message: 'unreachable; serving without it' } } });

      beginClosing(gateway);
      const closing = await gateway.inject({ url: '/readyz' });
      expect(closing.statusCode).toBe(503);
      expect(closing.json()).toMatchObject({ status: 'error', error: { shutdown: { status: 'down', message: 'shutting down' } } });
      expect((await gateway.inject({ url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await gateway.close();
      await resource.close();
    }
  });
});
