import { createTestDatabase, describeIfPostgres, type TestDatabase } from '../../../../tools/test-support';
import { runClientsCli, USAGE } from '../../src/cli/clients-cli';
import type { AuthConfig } from '../../src/config/auth-config';
import { PrismaService } from '../../src/database/prisma.service';

async function cli(env: Record<string, string | undefined>, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const status = await runClientsCli(argv, env, { out: (line) => out.push(line), err: (line) => err.push(line) });
  return { status, out: out.join('\n'), err: err.join('\n') };
}

const CREATE = ['create', '--name', 'Acme LMS', '--redirect-uri', 'https://lms.acme.example/oauth/callback'];

describeIfPostgres('clients CLI: dpop_bound_access_tokens (RFC 9449 §5.2) on a real PostgreSQL', () => {
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

  it('creates an integration that must use DPoP with --dpop-bound-access-tokens; show prints it', async () => {
    const created = await cli(env, ...CREATE, '--dpop-bound-access-tokens', '--json');
    expect(created.status).toBe(0);
    const { clientId, dpopBoundAccessTokens } = JSON.parse(created.out) as { clientId: string; dpopBoundAccessTokens: boolean };
    expect(dpopBoundAccessTokens).toBe(true);
    expect((await prisma.client.findUniqueOrThrow({ where: { id: clientId } })).dpopBoundAccessTokens).toBe(true);

    expect(JSON.parse((await cli(env, 'show', clientId, '--json')).out)).toMatchObject({ clientId, dpopBoundAccessTokens: true });
    expect((await cli(env, 'show', clientId)).out).toContain('DPoP:            required: every access token is DPoP-bound (dpop_bound_access_tokens)');
  });

  it('leaves DPoP optional without the option', async () => {
    const { clientId, dpopBoundAccessTokens } = JSON.parse((await cli(env, ...CREATE, '--json')).out) as { clientId: string; dpopBoundAccessTokens: boolean };
    expect(dpopBoundAccessTokens).toBe(false);
    expect((await prisma.client.findUniqueOrThrow({ where: { id: clientId } })).dpopBoundAccessTokens).toBe(false);
    expect((await cli(env, 'show', clientId)).out).toContain('DPoP:            optional (a token request with a proof gets a bound token)');
  });

  it('is a flag: a value given to it is a usage error', async () => {
    const result = await cli(env, ...CREATE, '--dpop-bound-access-tokens=yes');
    expect(result.status).toBe(2);
    expect(result.err).toContain(USAGE);
  });
});
