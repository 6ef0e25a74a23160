/**
 * A DPoP proof is accepted once across every instance of the auth server (RFC 9449 §11.1, jti):
 * two instances (two Nest modules, each with its own connection pool, as two replicas behind the
 * gateway) on one real PostgreSQL receive the same proof at the same time, and exactly one accepts
 * it. The clean-up job purges the record once the proof could no longer be accepted anyway.
 */
import type { TestingModule } from '@nestjs/testing';
import { DpopProofVerifier } from '@platform/dpop';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';
import { createTestDatabase, describeIfPostgres, type TestDatabase } from '../../../../tools/test-support';
import type { PrismaService } from '../../src/database/prisma.service';
import { MaintenanceRepository } from '../../src/maintenance/maintenance.repository';
import { MaintenanceService } from '../../src/maintenance/maintenance.service';
import { UsedDpopProofs } from '../../src/token/dpop/used-dpop-proofs.repository';
import { databaseTestingModule } from '../support/database-fixtures';

jest.setTimeout(60_000);

const HOUR = 3600_000;
const TOKEN_ENDPOINT = 'https://platform.example/api/oauth/token';

interface Instance {
  moduleRef: TestingModule;
  prisma: PrismaService;
  used: UsedDpopProofs;
  verifier: DpopProofVerifier;
}

function instancesOnOneDatabase(count: number) {
  const state = { database: undefined as TestDatabase | undefined, instances: [] as Instance[] };
  beforeAll(async () => {
    state.database = await createTestDatabase('auth');
    for (let i = 0; i < count; i++) {
      const { moduleRef, prisma } = await databaseTestingModule(state.database, {
        providers: [UsedDpopProofs, MaintenanceRepository, MaintenanceService],
        env: { MAINTENANCE_ENABLED: 'false', MAINTENANCE_GRACE_SECONDS: '3600', MAINTENANCE_BATCH_SIZE: '2' },
      });
      const used = moduleRef.get(UsedDpopProofs);
      state.instances.push({ moduleRef, prisma, used, verifier: new DpopProofVerifier({ maxAgeSeconds: 60, replay: used }) });
    }
  });
  afterAll(async () => {
    for (const { moduleRef } of state.instances) await moduleRef.close();
    await state.database?.drop();
  });
  return state.instances;
}

let keys: Awaited<ReturnType<typeof generateKeyPair>>;
beforeAll(async () => {
  keys = await generateKeyPair('ES256');
});

async function proof(jti: string = randomUUID()): Promise<string> {
  return new SignJWT({ jti, htm: 'POST', htu: TOKEN_ENDPOINT, iat: Math.floor(Date.now() / 1000) })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(keys.publicKey) })
    .sign(keys.privateKey);
}

describeIfPostgres('one DPoP proof, two instances of the auth server at once', () => {
  const instances = instancesOnOneDatabase(2);

  it('one proof presented concurrently on both instances: exactly one accepts it, the others are invalid_dpop_proof', async () => {
    for (let round = 0; round < 10; round++) {
      const replayed = await proof();
      const outcomes = await Promise.allSettled([0, 1, 0, 1, 0, 1].map((i) => instances[i].verifier.verify({ proof: replayed, method: 'POST', url: TOKEN_ENDPOINT })));
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      for (const outcome of outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected')) {
        expect(outcome.reason).toMatchObject({ error: 'invalid_dpop_proof', description: 'The DPoP proof was used before' });
      }
    }
  });

  it('a replay on the other instance later is refused too', async () => {
    const replayed = await proof();
    await expect(instances[0].verifier.verify({ proof: replayed, method: 'POST', url: TOKEN_ENDPOINT })).resolves.toMatchObject({ jti: expect.any(String) });
    await expect(instances[1].verifier.verify({ proof: replayed, method: 'POST', url: TOKEN_ENDPOINT })).rejects.toMatchObject({ error: 'invalid_dpop_proof' });
  });

  it('stores only the hash: the jti cannot be read back', async () => {
    await instances[0].verifier.verify({ proof: await proof('a-readable-jti'), method: 'POST', url: TOKEN_ENDPOINT });
    expect(JSON.stringify(await instances[0].prisma.usedDpopProof.findMany())).not.toContain('a-readable-jti');
  });
});

describe('the clean-up pass over used DPoP proofs', () => {
  const instances = instancesOnOneDatabase(1);

  it('deletes those expired for longer than the grace, in batches, and keeps the others', async () => {
    const now = new Date();
    const at = (offset: number) => new Date(now.getTime() + offset);
    for (const [key, until] of [
      ['past-1', at(-2 * HOUR)],
      ['past-2', at(-3 * HOUR)],
      ['past-3', at(-4 * HOUR)],
      ['within-grace', at(-HOUR / 2)],
      ['live', at(60_000)],
    ] as const) {
      expect(await instances[0].used.firstUse(key, until)).toBe(true);
    }
    const service = instances[0].moduleRef.get(MaintenanceService);
    expect((await service.purge(now)).expiredDpopProofs).toBe(3);
    expect(await instances[0].prisma.usedDpopProof.count()).toBe(2);
    expect(await instances[0].used.firstUse('within-grace', at(60_000))).toBe(false);
    expect(await instances[0].used.firstUse('live', at(60_000))).toBe(false);
  });
});
