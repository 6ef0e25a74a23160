/**
 * Races through the one origin: the same authorization code or refresh token presented twice
 * at the same moment. A code: exactly one request wins and the replay revokes what it produced.
 * A refresh token: both get a pair within the reuse window, and no valid token is left that
 * the client does not hold (checked by introspection, as the confidential client itself, and
 * at the resource server).
 */
import { bearer, exchange, authorize, isActive, pkce, refresh, registerConfidential, send, tokensFor, type RegisteredClient, type Tokens } from './support';

jest.setTimeout(120_000);

const ROUNDS = 5;

let client: RegisteredClient;

beforeAll(async () => {
  client = await registerConfidential();
});

describe('two simultaneous exchanges of one code', () => {
  it.each(Array.from({ length: ROUNDS }, (_, round) => round + 1))('round %i: exactly one wins, and the replay revokes what it produced', async () => {
    const { verifier, challenge } = pkce();
    const code = await authorize(client, challenge);
    const answers = await Promise.all([exchange(client, code, verifier), exchange(client, code, verifier)]);

    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, 400]);
    const winner = answers.find((answer) => answer.status === 200)?.json<Tokens>() as Tokens;
    const loser = answers.find((answer) => answer.status === 400);
    expect(loser?.json()).toMatchObject({ error: 'invalid_grant' });

    // RFC 6749 §4.1.2 / RFC 9700 §4.5: the tokens issued from a replayed code are revoked.
    expect(await isActive(client, winner.access_token)).toBe(false);
    expect(await isActive(client, winner.refresh_token)).toBe(false);
    expect((await send('/api/v1/students', { headers: bearer(winner.access_token) })).status).toBe(401);
    expect((await refresh(client, winner.refresh_token)).status).toBe(400);
  });
});

describe('two simultaneous refreshes of one refresh token', () => {
  // Several processes of one client refresh with the same token at once: within the reuse window
  // (REFRESH_REUSE_GRACE_SECONDS) the one that loses the race gets a sibling pair of the same grant
  // instead of ending it (RFC 9700 §4.14.2 trade-off, token/grants/refresh-reuse.ts).
  it.each(Array.from({ length: ROUNDS }, (_, round) => round + 1))('round %i: both get a pair, the grant lives, only the rotated token is dead', async () => {
    const original = await tokensFor(client);
    expect(await isActive(client, original.access_token)).toBe(true);

    const answers = await Promise.all([refresh(client, original.refresh_token), refresh(client, original.refresh_token)]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    const [first, second] = answers.map((answer) => answer.json<Tokens>());
    expect(new Set([original.refresh_token, first.refresh_token, second.refresh_token]).size).toBe(3);

    const everyToken = [original.access_token, original.refresh_token, first.access_token, first.refresh_token, second.access_token, second.refresh_token];
    const active = await Promise.all(everyToken.map((token) => isActive(client, token)));
    // The rotated token is never a current token again; everything else of the grant lives.
    expect(active).toEqual([true, false, true, true, true, true]);
    for (const token of [first.access_token, second.access_token]) {
      expect((await send('/api/v1/students', { headers: bearer(token) })).status).toBe(200);
    }
  });
});
