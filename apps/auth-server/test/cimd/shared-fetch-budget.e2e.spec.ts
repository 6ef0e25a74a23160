/**
 * The metadata-document fetch budget is one per document host for every instance of the auth
 * server: two running servers with one issuer, one database and one Redis (two replicas behind the
 * gateway) are asked, in turn, for client_id URLs of one host that all fail (404, never cached).
 * Together they fetch CIMD_FETCHES_PER_HOST_PER_MINUTE documents, not that many each; the rest
 * are 429 without a fetch, on either instance.
 */
import { realRedisUrl, describeIfRedis, TlsDocumentServer, createTestTls, type TestTls } from '../../../../tools/test-support';
import { type HardenedAuthServer, startHardenedAuthServer } from '../hardening/support/hardened-auth-server';

jest.setTimeout(120_000);

const BUDGET = 3;

describeIfRedis('one fetch budget per document host, shared by two auth server instances on one Redis', () => {
  let tls: TestTls;
  let site: TlsDocumentServer;
  let first: HardenedAuthServer;
  let second: HardenedAuthServer;

  beforeAll(async () => {
    tls = createTestTls(['127.0.0.1']);
    site = await new TlsDocumentServer(tls, '127.0.0.1').start();
    const env = {
      RATE_LIMITS_ENABLED: 'false',
      REDIS_URL: realRedisUrl() as string,
      CIMD_ALLOW_SPECIAL_USE_HOSTS: 'true',
      CIMD_EXTRA_CA_FILE: tls.caFile,
      CIMD_FETCHES_PER_HOST_PER_MINUTE: String(BUDGET),
    };
    first = await startHardenedAuthServer({ env });
    // One issuer for both, as behind one origin: the counters are the issuer's.
    second = await startHardenedAuthServer({ env: { ...env, PUBLIC_BASE_URL: first.issuer }, database: first.database });
  });

  afterAll(async () => {
    await second?.close();
    await first?.close();
    await site?.stop();
    tls?.cleanup();
  });

  it(`fetches ${BUDGET} documents of the host in all, whichever instance is asked; then 429 on both, without a fetch`, async () => {
    const paths = Array.from({ length: 2 * BUDGET }, (_v, i) => `/budget-${i}/client.json`);
    const statuses: number[] = [];
    for (const [i, path] of paths.entries()) {
      const instance = i % 2 === 0 ? first : second;
      const response = await fetch(`${instance.url}/api/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x', client_id: site.url(path) }),
      });
      statuses.push(response.status);
      if (response.status === 429) expect(await response.json()).toMatchObject({ error: 'too_many_requests' });
    }
    // Each fetched document was a 404: invalid_client. Per process, each instance would have fetched BUDGET.
    expect(statuses).toEqual([...Array(BUDGET).fill(401), ...Array(BUDGET).fill(429)]);
    expect(paths.reduce((sum, path) => sum + site.hitCount(path), 0)).toBe(BUDGET);
  });
});
