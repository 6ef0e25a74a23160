import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { TOKEN_REVOKED_CHANNEL, type TokenRevokedEvent } from '@platform/contracts';
import { RedisEventBus } from '@platform/event-bus';
import { createTestDatabase, describeIfPostgres, describeIfRedis, type TestDatabase } from '../../../../tools/test-support';
import { runClientsCli, USAGE } from '../../src/cli/clients-cli';
import { hashToken } from '../../src/crypto/tokens';
import type { AuthConfig } from '../../src/config/auth-config';
import { PrismaService } from '../../src/database/prisma.service';

const ROOT = join(__dirname, '../../../..');

async function cli(env: Record<string, string | undefined>, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const status = await runClientsCli(argv, env, { out: (line) => out.push(line), err: (line) => err.push(line) });
  return { status, out: out.join('\n'), err: err.join('\n') };
}

/** The command's --json output; a failed command fails the test with its status and stderr. */
function json(result: { status: number; out: string; err: string }) {
  if (result.status !== 0) throw new Error(`clients exited with ${result.status}: ${result.err}`);
  return JSON.parse(result.out);
}

const CREATE = ['create', '--name', 'Acme LMS', '--redirect-uri', 'https://lms.acme.example/oauth/callback', '--json'];

describeIfPostgres('clients CLI on a real PostgreSQL', () => {
  let database: TestDatabase;
  let prisma: PrismaService;
  let env: Record<string, string | undefined>;

  beforeAll(async () => {
    database = await createTestDatabase('auth');
    prisma = new PrismaService({ database: { url: database.url, poolSize: 2 } } as AuthConfig);
    env = { AUTH_DATABASE_URL: database.url };
  }, 60_000);

  afterAll(async () => {
    await prisma?.$disconnect();
    await database?.drop();
  });

  it('creates a confidential integration, prints its secret once and stores only its hash', async () => {
    const created = await cli(env, ...CREATE, '--auth-method', 'client_secret_post', '--scope-ceiling', 'openid profile courses:read', '--default-scope', 'openid');
    expect(created.status).toBe(0);
    const output = json(created);
    expect(output).toMatchObject({
      kind: 'integration',
      name: 'Acme LMS',
      authMethod: 'client_secret_post',
      redirectUris: ['https://lms.acme.example/oauth/callback'],
      defaultScope: 'openid',
      activeGrants: 0,
    });
    expect(output.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const row = await prisma.client.findUniqueOrThrow({ where: { id: output.clientId } });
    expect(row.secretHash).toBe(hashToken(output.clientSecret));
    expect(JSON.stringify(row)).not.toContain(output.clientSecret);
    expect(row).toMatchObject({ kind: 'integration', tokenEndpointAuthMethod: 'client_secret_post', grantTypes: ['authorization_code', 'refresh_token'] });
    expect(row.scopeCeiling?.split(' ').sort()).toEqual(['courses:read', 'openid', 'profile']);

    const shown = await cli(env, 'show', output.clientId, '--json');
    expect(json(shown)).not.toHaveProperty('clientSecret');
    expect((await cli(env, 'show', output.clientId)).out).not.toContain(output.clientSecret);
  });

  it('lists integrations, rotates a secret (the old hash is gone), disables and deletes', async () => {
    const { clientId, clientSecret } = json(await cli(env, ...CREATE));
    expect(json(await cli(env, 'list', '--json')).map((c: { clientId: string }) => c.clientId)).toContain(clientId);

    const rotated = json(await cli(env, 'rotate-secret', clientId, '--json'));
    expect(rotated.clientSecret).not.toBe(clientSecret);
    expect((await prisma.client.findUniqueOrThrow({ where: { id: clientId } })).secretHash).toBe(hashToken(rotated.clientSecret));

    expect((await cli(env, 'disable', clientId)).status).toBe(0);
    expect((await prisma.client.findUniqueOrThrow({ where: { id: clientId } })).disabledAt).toBeInstanceOf(Date);
    expect((await cli(env, 'list')).out).toMatch(new RegExp(`${clientId}\\s+integration\\s+disabled`));
    expect((await cli(env, 'enable', clientId)).status).toBe(0);
    expect((await prisma.client.findUniqueOrThrow({ where: { id: clientId } })).disabledAt).toBeNull();

    expect((await cli(env, 'delete', clientId)).status).toBe(2);
    expect((await cli(env, 'delete', clientId, '--yes')).status).toBe(0);
    expect(await prisma.client.findUnique({ where: { id: clientId } })).toBeNull();
  });

  it.each([
    [['--redirect-uri', 'http://lms.acme.example/cb'], 'must use https'],
    [['--redirect-uri', 'https://LMS.acme.example/cb'], 'normalized'],
    [['--redirect-uri', 'https://lms.acme.example/a/../cb'], 'normalized'],
    [['--redirect-uri', 'https://lms.acme.example/cb#x'], 'fragment'],
    [['--redirect-uri', 'https://lms.acme.example/cb', '--scope-ceiling', 'openid nonsense'], 'unknown scope'],
    [['--redirect-uri', 'https://lms.acme.example/cb', '--scope-ceiling', 'openid', '--default-scope', 'profile'], 'beyond the ceiling'],
    [['--redirect-uri', 'https://lms.acme.example/cb', '--auth-method', 'none'], '--auth-method'],
    [[], 'at least one'],
  ])('refuses create %j', async (args, message) => {
    const result = await cli(env, 'create', '--name', 'X', ...args);
    expect(result.status).toBe(2);
    expect(result.err).toContain(message);
  });

  it('takes a client id that begins with "-" as an id, not as options (base64url ids could, before ids were drawn without one)', async () => {
    const { clientId: drawn } = json(await cli(env, ...CREATE));
    // A single "-" then a letter, whatever was drawn ("--" ids: the test below).
    const clientId = `-A${drawn.slice(2)}`;
    await prisma.client.update({ where: { id: drawn }, data: { id: clientId } });

    expect(json(await cli(env, 'show', clientId, '--json')).clientId).toBe(clientId);
    expect(json(await cli(env, '--json', 'rotate-secret', clientId)).clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await cli(env, 'disable', clientId)).status).toBe(0);
    expect((await prisma.client.findUniqueOrThrow({ where: { id: clientId } })).disabledAt).toBeInstanceOf(Date);
    expect((await cli(env, 'delete', clientId, '--', '--yes')).status).toBe(2);
    expect((await cli(env, 'delete', '--yes', '--', clientId)).status).toBe(0);
    expect(await prisma.client.findUnique({ where: { id: clientId } })).toBeNull();
    expect((await cli(env, 'create', '--name', '-Acme', '--redirect-uri', 'https://lms.acme.example/cb')).err).toContain('ambiguous');
    // An option's one-letter form is still an option, wherever it stands.
    expect(await cli(env, 'show', '-h')).toEqual({ status: 0, out: USAGE, err: '' });
  });

  it('takes a client id that begins with "--" as an id when it has a drawn id\'s shape', async () => {
    const { clientId: drawn } = json(await cli(env, ...CREATE));
    const clientId = `--${drawn.slice(2)}`;
    await prisma.client.update({ where: { id: drawn }, data: { id: clientId } });

    expect(json(await cli(env, 'show', clientId, '--json')).clientId).toBe(clientId);
    expect((await cli(env, 'delete', '--yes', clientId)).status).toBe(0);
    expect(await prisma.client.findUnique({ where: { id: clientId } })).toBeNull();
    // Anything else that begins with "--" is still an option, and an unknown one a usage error.
    expect((await cli(env, 'show', '--bogus')).err).toContain("Unknown option '--bogus'");
  });

  it('answers usage errors and unknown ids with status 2, never a stack trace', async () => {
    expect((await cli(env, 'frobnicate')).status).toBe(2);
    const unknown = await cli(env, 'show', 'no-such-client');
    expect(unknown.status).toBe(2);
    expect(unknown.err).toBe('no client with id no-such-client');
    expect((await cli(env, 'rotate-secret')).status).toBe(2);
    expect((await cli(env, 'create', '--bogus')).status).toBe(2);
  });

  describeIfRedis('disable with REDIS_URL', () => {
    it('ends every grant and announces the revoked access tokens to the resource servers', async () => {
      const { clientId } = json(await cli(env, ...CREATE));
      await prisma.school.upsert({ where: { id: 'cli-school' }, create: { id: 'cli-school', name: 'CLI' }, update: {} });
      const user = await prisma.user.create({
        data: { schoolId: 'cli-school', email: `cli-${clientId}@academy.test`, name: 'U', role: 'student', passwordHash: 'x' },
      });
      const grant = await prisma.grant.create({
        data: { clientId, userId: user.id, schoolId: 'cli-school', scope: 'openid', resource: 'https://api.test', authTime: new Date() },
      });
      const tokenHash = hashToken(`token-${clientId}`);
      await prisma.accessToken.create({
        data: {
          tokenHash, grantId: grant.id, clientId, userId: user.id, schoolId: 'cli-school', scope: 'openid',
          audience: 'https://api.test', issuedAt: new Date(), expiresAt: new Date(Date.now() + 3_600_000),
        },
      });
      const bus = await new RedisEventBus(process.env['REDIS_URL'] as string).connect();
      const heard: TokenRevokedEvent[] = [];
      const unsubscribe = await bus.subscribe<TokenRevokedEvent>(TOKEN_REVOKED_CHANNEL, (event) => heard.push(event));
      try {
        const result = await cli({ ...env, REDIS_URL: process.env['REDIS_URL'] }, 'disable', clientId);
        expect(result.out).toContain('1 grant(s)');
        for (let i = 0; i < 100 && !heard.some((e) => e.accessTokenHashes.includes(tokenHash)); i++) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        expect(heard.find((e) => e.accessTokenHashes.includes(tokenHash))).toMatchObject({ reason: 'revocation' });
        expect((await prisma.grant.findUniqueOrThrow({ where: { id: grant.id } })).revokedAt).toBeInstanceOf(Date);
        expect((await prisma.accessToken.findUniqueOrThrow({ where: { tokenHash } })).revokedAt).toBeInstanceOf(Date);
      } finally {
        await unsubscribe();
        await bus.close();
      }
    });
  });

  it('works as `node tools/clients/clients.cjs` (what npm run clients runs)', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [join(ROOT, 'tools/clients/clients.cjs'), ...CREATE], {
      cwd: ROOT,
      env: { ...process.env, AUTH_DATABASE_URL: database.url, DATABASE_URL: '' },
    });
    const { clientId } = JSON.parse(stdout);
    expect(await prisma.client.findUnique({ where: { id: clientId } })).toMatchObject({ kind: 'integration' });
  }, 60_000);
});

describe('clients CLI on the embedded database (.data/ of the launcher)', () => {
  let dataDir: string;
  const env = () => ({ PLATFORM_DATA_DIR: dataDir });

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'clients-cli-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('creates the database on first use, keeps integrations across runs, and releases the lock', async () => {
    const created = await cli(env(), ...CREATE);
    expect(created.status).toBe(0);
    const { clientId } = json(created);
    const listed = await cli(env(), 'list', '--json');
    expect(json(listed).map((c: { clientId: string }) => c.clientId)).toEqual([clientId]);
  }, 60_000);

  it('refuses while the platform holds the data directory', async () => {
    // The parent of this test process: alive, and not us.
    writeFileSync(join(dataDir, 'launcher.pid'), String(process.ppid));
    const result = await cli(env(), 'list');
    expect(result.status).toBe(1);
    expect(result.err).toContain('stop it first');
    rmSync(join(dataDir, 'launcher.pid'));
  });
});
