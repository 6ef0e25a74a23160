/**
 * A signing-key rotation across two replicas, in one edit of OIDC_SIGNING_KEYS: the replica
 * rolled out first has the new key first in its set, the other still has the old set. At no
 * moment does an ID token carry a key that the other replica's JWKS lacks: the new key signs
 * only once it has been published for OIDC_SIGNING_KEY_ACTIVATION_SECONDS, and the replica not
 * yet rolled out publishes it from the moment the first one did. The clock is the test's.
 */
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { createTestDatabase, type TestDatabase } from '../../../../tools/test-support/test-database';
import { testAuthConfig } from '../../test/support/database-fixtures';
import { PrismaService } from '../database/prisma.service';
import { Clock } from '../common/clock';
import { KeyPublications } from './key-publications.repository';
import { generatePrivateJwk, SigningKeysService } from './signing-keys.service';

jest.setTimeout(60_000);

class TestClock extends Clock {
  constructor(private at = Date.now()) {
    super();
  }

  override now(): Date {
    return new Date(this.at);
  }

  advance(ms: number): void {
    this.at += ms;
  }
}

describe('signing-key rotation across replicas', () => {
  let database: TestDatabase;
  let prisma: PrismaService;
  const replicas: SigningKeysService[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('auth');
    prisma = new PrismaService(testAuthConfig(database));
  });

  afterAll(async () => {
    for (const replica of replicas) replica.onModuleDestroy();
    await prisma?.onApplicationShutdown();
    await database?.drop();
  });

  async function replica(keys: object[], clock: Clock, activationSeconds = 600): Promise<SigningKeysService> {
    const config = testAuthConfig(database, { OIDC_SIGNING_KEYS: JSON.stringify(keys), OIDC_SIGNING_KEY_ACTIVATION_SECONDS: String(activationSeconds) });
    const service = new SigningKeysService(config, new KeyPublications(prisma), clock);
    await service.onModuleInit();
    replicas.push(service);
    return service;
  }

  /** An ID token of `signer`, verified against `verifier`'s JWKS as a client that fetched it now would. */
  async function verifiesAgainst(signer: SigningKeysService, verifier: SigningKeysService): Promise<string> {
    const token = await signer.sign({ iss: 'https://academy.example', sub: 'user-1', aud: 'client-1' }, 300);
    await jwtVerify(token, createLocalJWKSet(verifier.jwks()));
    return decodeProtectedHeader(token).kid as string;
  }

  it('signs with the new key only once every replica has published it for the activation time, in one edit', async () => {
    const [oldKey, newKey] = await Promise.all([generatePrivateJwk(), generatePrivateJwk()]);
    const clock = new TestClock();
    const notRolledOut = await replica([oldKey], clock);
    clock.advance(3_600_000);

    // The rollout begins: one replica has the new key first.
    const rolledOut = await replica([newKey, oldKey], clock);
    await notRolledOut.refresh();
    expect(rolledOut.signingKeyId()).toBe(oldKey.kid);
    // The replica not rolled out publishes the new key already, and still signs with the old one.
    expect(notRolledOut.jwks().keys.map((key) => key.kid).sort()).toEqual([oldKey.kid, newKey.kid].sort());
    expect(await verifiesAgainst(rolledOut, notRolledOut)).toBe(oldKey.kid);
    expect(await verifiesAgainst(notRolledOut, rolledOut)).toBe(oldKey.kid);

    clock.advance(599_000);
    expect(rolledOut.signingKeyId()).toBe(oldKey.kid);
    clock.advance(1_000);
    expect(await verifiesAgainst(rolledOut, notRolledOut)).toBe(newKey.kid);

    // A replica rolled out after the activation signs with the new key from its start (the
    // activation is counted on the database's clock, which the test cannot move: the row is aged).
    await prisma.$executeRaw`UPDATE signing_key_publications SET first_published_at = LOCALTIMESTAMP - interval '601 seconds' WHERE kid = ${newKey.kid}`;
    const late = await replica([newKey, oldKey], new TestClock());
    expect(late.signingKeyId()).toBe(newKey.kid);
  });

  it('never reads a key it has just published as published in the future (the column keeps milliseconds)', async () => {
    const publications = new KeyPublications(prisma);
    const fresh = Array.from({ length: 40 }, (_, i) => ({ kid: `fresh-${i}`, publicJwk: { kty: 'OKP', crv: 'Ed25519', x: `x${i}` } }));
    const recorded = await publications.publish(fresh);
    expect(recorded.filter((publication) => publication.publishedForMs < 0)).toEqual([]);
    await prisma.$executeRaw`DELETE FROM signing_key_publications WHERE kid LIKE 'fresh-%'`;
  });

  it('signs at once with the one key of a first install', async () => {
    const only = await generatePrivateJwk();
    const first = await replica([only], new TestClock());
    expect(first.signingKeyId()).toBe(only.kid);
    expect(first.jwks().keys.map((key) => key.kid)).toContain(only.kid);
  });

  it('keeps publishing a key no replica is configured with any more for a token lifetime, then drops it', async () => {
    const [retired, current] = await Promise.all([generatePrivateJwk(), generatePrivateJwk()]);
    const clock = new TestClock();
    await replica([retired], clock);
    const remaining = await replica([current], clock);
    expect(remaining.jwks().keys.map((key) => key.kid)).toContain(retired.kid);
    // Retention is the database's clock: the row is made to look configured last long ago.
    await prisma.$executeRaw`UPDATE signing_key_publications SET last_configured_at = LOCALTIMESTAMP - interval '2 hours' WHERE kid = ${retired.kid}`;
    await remaining.refresh();
    expect(remaining.jwks().keys.map((key) => key.kid)).not.toContain(retired.kid);
  });

  it('refuses a set that reuses a published kid for other key material', async () => {
    const [published, impostor] = await Promise.all([generatePrivateJwk(), generatePrivateJwk()]);
    await replica([published], new TestClock());
    await expect(replica([{ ...impostor, kid: published.kid }], new TestClock())).rejects.toThrow(`kid ${published.kid} was published before with other key material`);
  });
});
