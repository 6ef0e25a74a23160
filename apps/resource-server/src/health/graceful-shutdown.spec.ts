/**
 * SIGTERM's path (runService's closeService calls app.close() after the drain): the server stops taking
 * connections, lets the request in flight finish with its answer, and only then closes the
 * database, Redis and the event bus, leaving no socket open. The request is held in flight by
 * a slow introspection at the (stub) authorization server.
 */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '../../../../tools/test-support/test-database';
import { createResourceServer } from '../bootstrap';
import { loadResourceConfig } from '../config/resource-config';
import { PrismaService } from '../database/prisma.service';
import { AuthServerStub } from '../../test/support/auth-server.stub';

jest.setTimeout(60_000);

const TOKEN = 'shutdown-test-token-0123456789abcdef';

/** Open TCP connections of this process: what would keep it from exiting. */
const openSockets = () => process.getActiveResourcesInfo().filter((kind) => kind === 'TCPSocketWrap').length;

function connectionRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

async function eventually(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(20);
  }
}

async function connectionsTo(databaseUrl: string): Promise<number> {
  const url = new URL(databaseUrl);
  const name = url.pathname.slice(1);
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
    return rows[0].n;
  } finally {
    await client.end();
  }
}

describe('graceful shutdown of the resource server', () => {
  const authServer = new AuthServerStub();
  let database: TestDatabase;
  let app: NestFastifyApplication;
  let port: number;
  let socketsBefore: number;

  beforeAll(async () => {
    await authServer.start();
    authServer.tokens.set(TOKEN, { scope: 'students:read' });
    database = await createTestDatabase('resource');
    socketsBefore = openSockets();
    const config = loadResourceConfig({
      NODE_ENV: 'test',
      PUBLIC_BASE_URL: authServer.origin,
      AUTH_SERVER_URL: authServer.origin,
      DATABASE_URL: database.url,
      DATABASE_POOL_SIZE: String(database.poolSize),
      INTROSPECTION_CLIENT_SECRET: 'test-introspection-secret-0123456789',
      SEED_DEMO_DATA: 'true',
      ...(process.env['REDIS_URL'] ? { REDIS_URL: process.env['REDIS_URL'] } : {}),
    });
    app = await createResourceServer(config, { logger: false });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.getHttpServer().address() as { port: number }).port;
  });

  afterAll(async () => {
    await authServer.stop();
    await database?.drop();
  });

  it('refuses new connections, finishes the request in flight, then closes the database and Redis', async () => {
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/api/v1/courses`)).status).toBe(200);
    if (database.kind === 'postgresql') expect(await connectionsTo(database.url)).toBeGreaterThan(0);

    const events: string[] = [];
    const prisma = app.get(PrismaService);
    const disconnect = prisma.$disconnect.bind(prisma);
    jest.spyOn(prisma, '$disconnect').mockImplementation(async () => {
      events.push('database closed');
      await disconnect();
    });

    // Server side: when the response has been handed to the socket.
    app.getHttpServer().on('request', (_request: unknown, response: NodeJS.EventEmitter) => {
      response.once('finish', () => events.push('in-flight request answered'));
    });
    const introspection = authServer.hold();
    const inFlight = fetch(`${base}/api/v1/students`, { headers: { authorization: `Bearer ${TOKEN}` } }).then(async (response) => ({
      status: response.status,
      connection: response.headers.get('connection'),
      body: (await response.json()) as { data: unknown[] },
    }));
    await introspection.arrived;

    const closed = app.close().then(() => events.push('app closed'));
    await eventually(() => connectionRefused(port), 'new connections are refused');
    expect(events).toEqual([]);

    introspection.release();
    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(answer.connection).toBe('close');
    expect(answer.body.data.length).toBeGreaterThan(0);
    await closed;
    expect(events).toEqual(['in-flight request answered', 'database closed', 'app closed']);

    if (database.kind === 'postgresql') {
      await eventually(async () => (await connectionsTo(database.url)) === 0, 'the pool has no connection left');
    }
    // Database, Redis (cache, event bus, readiness), the request's own connection: all closed.
    // The stub's kept-alive introspection connection goes with the stub.
    await authServer.stop();
    await eventually(() => openSockets() <= socketsBefore, `open sockets are back to ${socketsBefore} (now ${openSockets()})`);
  });
});
