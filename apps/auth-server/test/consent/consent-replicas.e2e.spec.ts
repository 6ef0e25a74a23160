/**
 * Two running auth servers on one PostgreSQL, as two replicas behind the gateway: one browser's
 * consent form sent to both at once (a double submit the gateway spreads over two instances)
 * approves on exactly one of them. The other answers with the consent page again (403, "form
 * expired") and no second code exists.
 */
import { Client } from 'pg';
import { BrowserLikeAgent, type AgentResponse, describeIfPostgres } from '../../../../tools/test-support';
import { type HardenedAuthServer, startHardenedAuthServer } from '../hardening/support/hardened-auth-server';
import { authorizationUrl, pkce, registerClient } from '../hardening/support/oauth';

jest.setTimeout(120_000);

describeIfPostgres('one consent form on two auth server instances', () => {
  let first: HardenedAuthServer;
  let second: HardenedAuthServer;
  let clientId: string;

  beforeAll(async () => {
    const env = { RATE_LIMITS_ENABLED: 'false' };
    first = await startHardenedAuthServer({ env });
    // One issuer for both, as behind one origin.
    second = await startHardenedAuthServer({ env: { ...env, PUBLIC_BASE_URL: first.issuer }, database: first.database });
    ({ client_id: clientId } = await registerClient(first.url));
  });

  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  /** The page's form as a URL of the given instance: the same form, posted there. */
  const on = (server: HardenedAuthServer, page: AgentResponse): AgentResponse => ({ ...page, url: `${server.url}${new URL(page.url).pathname}` });

  it('approves on exactly one instance, every time', async () => {
    const agent = new BrowserLikeAgent(first.issuer);
    const login = await agent.open(authorizationUrl(first.url, clientId, pkce().challenge));
    await agent.submit(login, { email: 'demo@academy.test', password: 'demo-password' });
    for (let round = 0; round < 5; round++) {
      // The page every round: the first approval is remembered otherwise.
      const consent = await agent.open(authorizationUrl(first.url, clientId, pkce().challenge, { prompt: 'consent' }));
      expect(consent.body).toContain('Approve');
      const answers = await Promise.all([agent.submit(on(first, consent), {}, 'approve'), agent.submit(on(second, consent), {}, 'approve')]);
      const codes = answers.filter((answer) => answer.location && new URL(answer.location).searchParams.has('code'));
      const refused = answers.filter((answer) => answer.status === 403 && answer.body.includes('This form expired or was not sent from this page'));
      expect([codes.length, refused.length]).toEqual([1, 1]);
    }
    expect(await countCodes(first)).toBe(5);
  });
});

/** Authorization codes stored for all clients (the database is this suite's own). */
async function countCodes(server: HardenedAuthServer): Promise<number> {
  const client = new Client({ connectionString: server.database.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ count: string }>('SELECT count(*) FROM authorization_codes');
    return Number(rows[0].count);
  } finally {
    await client.end();
  }
}
