import { registerErrorClassifier, toOAuthError } from '@platform/oauth-errors';
import { Client } from 'pg';
import { describeIfPostgres, freePort, realDatabaseUrl } from '../../../tools/test-support';
import { BAD_TEXT_CODES, DATABASE_UNAVAILABLE_CODES, databaseErrorClassifier } from './database-error-classifier';

/** How Prisma and its driver adapter hand on a driver's error: as the `cause`, a level or two down. */
function wrapped(code: string): Error {
  return new Error('query failed', { cause: new Error('driver adapter error', { cause: { code } }) });
}

describe('databaseErrorClassifier', () => {
  it('knows every code it is given by name', () => {
    expect([...DATABASE_UNAVAILABLE_CODES].sort()).toEqual(['08001', '08006', '57P01', '57P03', 'P1001', 'P1002', 'P1017', 'P2024']);
    expect([...BAD_TEXT_CODES].sort()).toEqual(['22021', '22P02', '22P05']);
  });

  it.each([
    ['P1001', "Prisma: can't reach database server"],
    ['P1002', 'Prisma: database server timed out'],
    ['P1017', 'Prisma: server closed the connection'],
    ['P2024', 'Prisma: timed out fetching a connection from the pool'],
    ['57P01', 'PostgreSQL admin_shutdown'],
    ['57P03', 'PostgreSQL cannot_connect_now'],
    ['08006', 'PostgreSQL connection_failure'],
    ['08001', 'PostgreSQL sqlclient_unable_to_establish_sqlconnection'],
  ])('maps %s (%s) to 503 temporarily_unavailable, thrown or wrapped', (code) => {
    for (const thrown of [Object.assign(new Error(`failed with ${code}`), { code }), wrapped(code)]) {
      const error = databaseErrorClassifier(thrown);
      expect(error).toMatchObject({ status: 503, error: 'temporarily_unavailable' });
      expect(error?.internalDetail).toBe(`Error: ${thrown.message}`);
    }
  });

  it.each([
    ['22021', 'character_not_in_repertoire (a NUL byte)'],
    ['22P05', 'untranslatable_character'],
    ['22P02', 'invalid_text_representation'],
  ])('maps %s (%s) to 400 invalid_request, thrown or wrapped', (code) => {
    for (const thrown of [Object.assign(new Error('invalid byte sequence'), { code }), wrapped(code)]) {
      expect(databaseErrorClassifier(thrown)?.toBody()).toEqual({
        error: 'invalid_request',
        error_description: 'The request contains characters that are not allowed',
      });
    }
  });

  it.each([
    ['a Prisma client that could not connect', Object.assign(new Error("Can't reach database server"), { name: 'PrismaClientInitializationError' })],
    ['a connection node-postgres saw end', new Error('Connection terminated unexpectedly')],
    ['a client node-postgres will not use again', new Error('Client has encountered a connection error and is not queryable')],
    ['an exhausted pg pool (raw SQL on the shared pool)', new Error('timeout exceeded when trying to connect')],
    ['a refused connection whose code Prisma dropped', new Error('connect ECONNREFUSED 127.0.0.1:5432')],
  ])('maps %s to 503 temporarily_unavailable', (_name, thrown) => {
    expect(databaseErrorClassifier(thrown)?.error).toBe('temporarily_unavailable');
    expect(databaseErrorClassifier(new Error('query failed', { cause: thrown }))?.error).toBe('temporarily_unavailable');
  });

  it.each([
    ['a unique violation', Object.assign(new Error('duplicate key'), { code: '23505' })],
    ['a Prisma record not found', Object.assign(new Error('No record'), { code: 'P2025' })],
    ["Node's own socket code (libs/oauth-errors maps it for every peer)", Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ['anything else', new TypeError('x is undefined')],
    ['a thrown string', 'P1001'],
    ['a cause chain deeper than five links', [1, 2, 3, 4, 5].reduce<unknown>((cause) => new Error('wrapped', { cause }), { code: 'P1001' })],
  ])('leaves %s to toOAuthError', (_name, thrown) => {
    expect(databaseErrorClassifier(thrown)).toBeUndefined();
  });

  describe('registered (as each service does at bootstrap)', () => {
    let unregister: () => void;
    beforeAll(() => {
      unregister = registerErrorClassifier(databaseErrorClassifier);
    });
    afterAll(() => unregister());

    // The cases libs/oauth-errors' own table had before the data layer's codes left it.
    it.each([
      ['a wrapped database outage', 503, 'temporarily_unavailable', new Error('query failed', { cause: { code: 'P1001' } })],
      ['an exhausted pg pool (raw SQL on the shared pool)', 503, 'temporarily_unavailable', new Error('timeout exceeded when trying to connect')],
      ['a NUL byte PostgreSQL refuses', 400, 'invalid_request', Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' })],
      ['a database outage', 503, 'temporarily_unavailable', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
      ['anything else', 500, 'server_error', new TypeError('x is undefined')],
    ])('toOAuthError maps %s to %i %s', (_name, status, code, thrown) => {
      const error = toOAuthError(thrown);
      expect(error.status).toBe(status);
      expect(error.error).toBe(code);
    });

    it('never puts the SQL or the driver message into the body', () => {
      const body = toOAuthError(Object.assign(new Error('SELECT * FROM users WHERE email = $1'), { code: '57P01' })).toBody();
      expect(JSON.stringify(body)).not.toContain('SELECT');
      expect(body.error).toBe('temporarily_unavailable');
    });
  });
});

describeIfPostgres('databaseErrorClassifier on what a real PostgreSQL throws', () => {
  const url = realDatabaseUrl() as string;
  const clients: Client[] = [];

  async function connect(): Promise<Client> {
    const client = new Client({ connectionString: url });
    // A terminated backend also reports on the client's 'error' event; the query's rejection is what is tested.
    client.on('error', () => undefined);
    clients.push(client);
    await client.connect();
    return client;
  }

  async function thrownBy(work: () => Promise<unknown>): Promise<unknown> {
    try {
      await work();
    } catch (error) {
      return error;
    }
    throw new Error('expected the query to fail');
  }

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.end().catch(() => undefined)));
  });

  it.each([
    ['a NUL byte in text (22021)', 'SELECT $1::text AS value', ['a\u0000b']],
    ['text that is not an integer (22P02)', 'SELECT $1::integer AS value', ['twelve']],
  ])('%s is invalid_request', async (_name, sql, values) => {
    const client = await connect();
    const error = await thrownBy(() => client.query(sql, values));
    expect(databaseErrorClassifier(error)?.error).toBe('invalid_request');
  });

  // The query meets 57P01 itself, or, when the FATAL message came first, the connection error after it.
  it('a connection the server terminated (pg_terminate_backend: 57P01 admin_shutdown) is temporarily_unavailable', async () => {
    const victim = await connect();
    const { rows } = await victim.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const admin = await connect();
    await admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
    const error = await thrownBy(() => victim.query('SELECT 1'));
    expect(databaseErrorClassifier(error)?.error).toBe('temporarily_unavailable');
  });

  it('a server that does not listen is temporarily_unavailable', async () => {
    const closed = new URL(url);
    closed.port = String(await freePort());
    const client = new Client({ connectionString: closed.toString() });
    const error = await thrownBy(() => client.connect());
    expect(databaseErrorClassifier(error)?.error).toBe('temporarily_unavailable');
  });
});
