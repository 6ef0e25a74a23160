/**
 * A private_key_jwt client assertion authenticates once across every instance of the auth server
 * (RFC 7523 §3, jti): two instances (two Nest modules, each with its own connection pool, as two
 * replicas behind the gateway) on one real PostgreSQL receive the same assertion at the same time,
 * and exactly one accepts it (the embedded PostgreSQL serves one session: concurrency needs the
 * real one). The clean-up job purges the record once the assertion could no longer be accepted.
 */
import type { TestingModule } from '@nestjs/testing';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { createTestDatabase, describeIfPostgres, type TestDatabase } from '../../../../tools/test-support';
import { ClientAssertionKeys } from '../../src/client-auth/client-assertion-keys';
import { ClientAssertionVerifier } from '../../src/client-auth/client-assertion-verifier';
import { ClientKeysRepository } from '../../src/client-auth/client-keys.repository';
import { UsedClientAssertions } from '../../src/client-auth/used-client-assertions.repository';
import type { DirectoryClient } from '../../src/client-metadata-documents';
import type { RemoteKeySets } from '../../src/client-metadata-documents/remote-key-sets';
import { AUTH_CONFIG, type AuthConfig } from '../../src/config/auth-config';
import type { PrismaService } from '../../src/database/prisma.service';
import { MaintenanceRepository } from '../../src/maintenance/maintenance.repository';
import { MaintenanceService } from '../../src/maintenance/maintenance.service';
import { directoryClient } from '../support/unit-fixtures';
import { databaseTestingModule, testClientData } from '../support/database-fixtures';

jest.setTimeout(60_000);

const HOUR = 3600_000;
const INTEGRATION = 'integration-with-keys';

interface Instance {
  moduleRef: TestingModule;
  prisma: PrismaService;
  used: UsedClientAssertions;
  verifier: ClientAssertionVerifier;
}

let signingKey: CryptoKey;
let publicJwk: JWK;

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  signingKey = privateKey;
  publicJwk = { ...(await exportJWK(publicKey)), kid: 'k1' };
});

/** `count` instances of the auth server's client authentication storage on one fresh database, with an integration holding a public key. */
function instancesOnOneDatabase(count: number) {
  const state = { database: undefined as TestDatabase | undefined, instances: [] as Instance[] };
  beforeAll(async () => {
    state.database = await createTestDatabase('auth');
    for (let i = 0; i < count; i++) {
      const { moduleRef, prisma } = await databaseTestingModule(state.database, {
        providers: [UsedClientAssertions, ClientKeysRepository, MaintenanceRepository, MaintenanceService],
        env: { MAINTENANCE_ENABLED: 'false', MAINTENANCE_GRACE_SECONDS: '3600', MAINTENANCE_BATCH_SIZE: '2' },
      });
      const used = moduleRef.get(UsedClientAssertions);
      const keys = new ClientAssertionKeys(moduleRef.get(ClientKeysRepository), {} as RemoteKeySets);
      const verifier = new ClientAssertionVerifier(moduleRef.get<AuthConfig>(AUTH_CONFIG), keys, used);
      state.instances.push({ moduleRef, prisma, used, verifier });
    }
    await state.instances[0].prisma.client.create({
      data: testClientData(INTEGRATION, { kind: 'integration', tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [publicJwk] } as object }),
    });
  });
  afterAll(async () => {
    for (const { moduleRef } of state.instances) await moduleRef.close();
    await state.database?.drop();
  });
  return state.instances;
}

let jtiCounter = 0;
async function assertion(config: AuthConfig, jti = `jti-${++jtiCounter}`): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: INTEGRATION, sub: INTEGRATION, aud: `${config.issuer}/api/oauth/token`, exp: now + 60, iat: now, jti })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
    .sign(signingKey);
}

const integration = (): DirectoryClient => directoryClient({ id: INTEGRATION, kind: 'integration', tokenEndpointAuthMethod: 'private_key_jwt' });

describeIfPostgres('one client assertion, two instances of the auth server at once', () => {
  const instances = instancesOnOneDatabase(2);
  const config = () => instances[0].moduleRef.get<AuthConfig>(AUTH_CONFIG);

  it('the same (client_id, jti) recorded from both instances at once: exactly one first use, every time', async () => {
    for (let round = 0; round < 20; round++) {
      const until = new Date(Date.now() + 60_000);
      const answers = await Promise.all([0, 1, 0, 1].map((i) => instances[i].used.recordFirstUse(INTEGRATION, `raced-${round}`, until)));
      expect(answers.filter(Boolean)).toEqual([true]);
    }
  });

  it('one assertion replayed concurrently on both instances: exactly one request authenticates, the others are invalid_client', async () => {
    for (let round = 0; round < 10; round++) {
      const replayed = await assertion(config());
      const outcomes = await Promise.allSettled([0, 1, 0, 1, 0, 1].map((i) => instances[i].verifier.verify(integration(), replayed)));
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      for (const outcome of outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected')) {
        expect(outcome.reason).toMatchObject({ error: 'invalid_client', description: expect.stringContaining('was used before') });
      }
    }
  });

  it('a replay on the other instance later is refused too', async () => {
    const replayed = await assertion(config());
    await expect(instances[0].verifier.verify(integration(), replayed)).resolves.toBeUndefined();
    await expect(instances[1].verifier.verify(integration(), replayed)).rejects.toMatchObject({ error: 'invalid_client' });
  });

  it('a jti is single use per client: another client may use the same value', async () => {
    const until = new Date(Date.now() + 60_000);
    expect(await instances[0].used.recordFirstUse('client-a', 'shared-jti', until)).toBe(true);
    expect(await instances[1].used.recordFirstUse('client-b', 'shared-jti', until)).toBe(true);
    expect(await instances[1].used.recordFirstUse('client-a', 'shared-jti', until)).toBe(false);
  });

  it('stores only hashes: neither the client_id nor the jti can be read back', async () => {
    await instances[0].used.recordFirstUse(INTEGRATION, 'a-readable-jti', new Date(Date.now() + 60_000));
    const rows = await instances[0].prisma.usedClientAssertion.findMany();
    expect(JSON.stringify(rows)).not.toContain('a-readable-jti');
    expect(JSON.stringify(rows)).not.toContain(INTEGRATION);
  });
});

describe('the clean-up pass over used client assertions', () => {
  const instances = instancesOnOneDatabase(1);
  const prisma = () => instances[0].prisma;

  it('deletes those expired for longer than the grace, in batches, and keeps the others', async () => {
    const now = new Date();
    const at = (offset: number) => new Date(now.getTime() + offset);
    for (const [jti, until] of [
      ['past-1', at(-2 * HOUR)],
      ['past-2', at(-3 * HOUR)],
      ['past-3', at(-4 * HOUR)],
      ['within-grace', at(-HOUR / 2)],
      ['live', at(60_000)],
    ] as const) {
      await instances[0].used.recordFirstUse(INTEGRATION, jti, until);
    }
    const service = instances[0].moduleRef.get(MaintenanceService);
    expect((await service.purge(now)).expiredClientAssertions).toBe(3);
    expect(await prisma().usedClientAssertion.count()).toBe(2);
    // What is left still refuses a replay.
    expect(await instances[0].used.recordFirstUse(INTEGRATION, 'within-grace', at(60_000))).toBe(false);
    expect(await instances[0].used.recordFirstUse(INTEGRATION, 'live', at(60_000))).toBe(false);
    expect((await service.purge(now)).expiredClientAssertions).toBe(0);
  });
});
