/**
 * The clients CLI registers private_key_jwt integrations (RFC 7523): public keys as a JWK Set
 * (a file, the JSON itself, or one JWK) or a jwks_uri, no secret issued; private and symmetric
 * keys refused; keys replaced with set-keys.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { createTestDatabase, describeIfPostgres, type TestDatabase } from '../../../../tools/test-support';
import { runClientsCli } from '../../src/cli/clients-cli';
import type { AuthConfig } from '../../src/config/auth-config';
import { PrismaService } from '../../src/database/prisma.service';

async function cli(env: Record<string, string | undefined>, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const status = await runClientsCli(argv, env, { out: (line) => out.push(line), err: (line) => err.push(line) });
  return { status, out: out.join('\n'), err: err.join('\n') };
}

function json(result: { status: number; out: string; err: string }) {
  if (result.status !== 0) throw new Error(`clients exited with ${result.status}: ${result.err}`);
  return JSON.parse(result.out);
}

const CREATE = ['create', '--name', 'Acme LMS', '--redirect-uri', 'https://lms.acme.example/oauth/callback'];

describeIfPostgres('clients CLI: private_key_jwt integrations', () => {
  let database: TestDatabase;
  let prisma: PrismaService;
  let env: Record<string, string | undefined>;
  let dir: string;
  let publicJwk: JWK;
  let privateJwk: JWK;
  let otherPublicJwk: JWK;
  let jwksFile: string;

  beforeAll(async () => {
    database = await createTestDatabase('auth');
    prisma = new PrismaService({ database: { url: database.url, poolSize: 2 } } as AuthConfig);
    env = { AUTH_DATABASE_URL: database.url };
    dir = mkdtempSync(join(tmpdir(), 'clients-keys-'));
    const pair = await generateKeyPair('RS256', { extractable: true });
    publicJwk = { ...(await exportJWK(pair.publicKey)), kid: 'lms-2026', use: 'sig', alg: 'RS256' };
    privateJwk = { ...(await exportJWK(pair.privateKey)), kid: 'lms-2026' };
    otherPublicJwk = { ...(await exportJWK((await generateKeyPair('ES256', { extractable: true })).publicKey)), kid: 'lms-2027' };
    jwksFile = join(dir, 'jwks.json');
    writeFileSync(jwksFile, JSON.stringify({ keys: [{ ...publicJwk, x5c: ['MIIB'] }] }));
  }, 60_000);

  afterAll(async () => {
    await prisma?.$disconnect();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('--jwks FILE: private_key_jwt, no secret issued, only the public members stored', async () => {
    const output = json(await cli(env, ...CREATE, '--jwks', jwksFile, '--json'));
    expect(output).toMatchObject({ authMethod: 'private_key_jwt', publicKeys: [{ kid: 'lms-2026', kty: 'RSA' }], jwksUri: null });
    expect(output).not.toHaveProperty('clientSecret');
    const row = await prisma.client.findUniqueOrThrow({ where: { id: output.clientId } });
    expect(row).toMatchObject({ kind: 'integration', tokenEndpointAuthMethod: 'private_key_jwt', secretHash: null, jwksUri: null });
    expect(row.jwks).toEqual({ keys: [publicJwk] });
  });

  it('the text output says no secret was issued, and show lists the keys', async () => {
    const created = await cli(env, ...CREATE, '--auth-method', 'private_key_jwt', '--jwks', jwksFile);
    expect(created.status).toBe(0);
    expect(created.out).toContain('No secret was issued');
    expect(created.out).not.toContain('client_secret:');
    const clientId = /client_id:\s+(\S+)/.exec(created.out)?.[1] as string;
    expect((await cli(env, 'show', clientId)).out).toContain('public keys:     lms-2026 (RSA)');
  });

  it('--jwks with the JSON itself, and with one JWK alone', async () => {
    expect(json(await cli(env, ...CREATE, '--jwks', JSON.stringify({ keys: [publicJwk] }), '--json')).publicKeys).toEqual([{ kid: 'lms-2026', kty: 'RSA' }]);
    expect(json(await cli(env, ...CREATE, '--jwks', JSON.stringify(otherPublicJwk), '--json')).publicKeys).toEqual([{ kid: 'lms-2027', kty: 'EC' }]);
  });

  it('--jwks-uri: the https URL is stored, no keys', async () => {
    const output = json(await cli(env, ...CREATE, '--jwks-uri', 'https://lms.acme.example/.well-known/jwks.json', '--json'));
    expect(output).toMatchObject({ authMethod: 'private_key_jwt', jwksUri: 'https://lms.acme.example/.well-known/jwks.json', publicKeys: null });
    expect((await prisma.client.findUniqueOrThrow({ where: { id: output.clientId } })).jwks).toBeNull();
  });

  it.each([
    ['a private key (a JWK with d)', () => ['--jwks', JSON.stringify({ keys: [privateJwk] })], 'this is a private key'],
    ['a private key file', () => ['--jwks', (writeFileSync(join(dir, 'private.json'), JSON.stringify(privateJwk)), join(dir, 'private.json'))], 'this is a private key'],
    ['a symmetric key (k)', () => ['--jwks', JSON.stringify({ keys: [{ kty: 'oct', k: 'c2VjcmV0LXNlY3JldA' }] })], 'symmetric key'],
    ['an RSA key under 2048 bits', () => ['--jwks', JSON.stringify(generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' }))], 'at least 2048 bits'],
    ['both --jwks and --jwks-uri (RFC 7591 §2)', () => ['--jwks', jwksFile, '--jwks-uri', 'https://lms.acme.example/jwks.json'], 'not both'],
    ['keys with a secret method', () => ['--auth-method', 'client_secret_basic', '--jwks', jwksFile], 'go with --auth-method private_key_jwt'],
    ['private_key_jwt without keys', () => ['--auth-method', 'private_key_jwt'], 'needs the public keys'],
    ['a jwks_uri over http', () => ['--jwks-uri', 'http://lms.acme.example/jwks.json'], 'must use https'],
    ['a file that does not exist', () => ['--jwks', join(dir, 'missing.json')], 'cannot read'],
    ['a file that is not JSON (a PEM key)', () => ['--jwks', (writeFileSync(join(dir, 'key.pem'), '-----BEGIN PUBLIC KEY-----'), join(dir, 'key.pem'))], 'not JSON'],
  ])('refuses %s (status 2, nothing stored)', async (_name, options, message) => {
    const before = await prisma.client.count();
    const refused = await cli(env, ...CREATE, ...options());
    expect(refused.status).toBe(2);
    expect(refused.err).toContain(message);
    expect(refused.err).not.toMatch(/\n\s+at /);
    expect(await prisma.client.count()).toBe(before);
  });

  it('set-keys replaces the keys of a private_key_jwt integration', async () => {
    const { clientId } = json(await cli(env, ...CREATE, '--jwks', jwksFile, '--json'));
    const replaced = json(await cli(env, 'set-keys', clientId, '--jwks', JSON.stringify({ keys: [publicJwk, otherPublicJwk] }), '--json'));
    expect(replaced.publicKeys).toEqual([
      { kid: 'lms-2026', kty: 'RSA' },
      { kid: 'lms-2027', kty: 'EC' },
    ]);
    const moved = json(await cli(env, 'set-keys', clientId, '--jwks-uri', 'https://lms.acme.example/jwks.json', '--json'));
    expect(moved).toMatchObject({ jwksUri: 'https://lms.acme.example/jwks.json', publicKeys: null });
    expect((await prisma.client.findUniqueOrThrow({ where: { id: clientId } })).jwks).toBeNull();
    expect((await cli(env, 'set-keys', clientId, '--jwks', JSON.stringify({ keys: [privateJwk] }))).status).toBe(2);
  });

  it('rotate-secret refuses a private_key_jwt integration; set-keys refuses a secret one', async () => {
    const { clientId } = json(await cli(env, ...CREATE, '--jwks', jwksFile, '--json'));
    const rotate = await cli(env, 'rotate-secret', clientId);
    expect(rotate).toMatchObject({ status: 2, err: expect.stringContaining('has no secret: replace its keys with set-keys') });
    const secretClient = json(await cli(env, ...CREATE, '--json'));
    expect((await cli(env, 'set-keys', secretClient.clientId, '--jwks', jwksFile)).status).toBe(2);
  });
});
