/**
 * Races through the one origin: the same authorization code or refresh token presented twice
 * at the same moment. Exactly one request wins; whatever the loser's replay revokes, no valid
 * token is left that the client does not know about (checked by introspection, as the
 * confidential client itself, and at the resource server).
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
  it.each(Array.from({ length: ROUNDS }, (_, round) => round + 1))('round %i: exactly one new pair, and no valid token left over', async () => {
    const original = await tokensFor(client);
    expect(await isActive(client, original.access_token)).toBe(true);

    const answers = await Promise.all([refresh(client, original.refresh_token), refresh(client, original.refresh_token)]);
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, 400]);
    const pair = answers.find((answer) => answer.status === 200)?.json<Tokens>() as Tokens;
    expect(answers.find((answer) => answer.status === 400)?.json()).toMatchObject({ error: 'invalid_grant' });
    expect(pair.refresh_token).not.toBe(original.refresh_token);

    const everyToken = [original.access_token, original.refresh_token, pair.access_token, pair.refresh_token];
    const active = await Promise.all(everyToken.map((token) => isActive(client, token)));
    // The rotated token is never valid again.
    expect(active[1]).toBe(false);
    // Nothing is valid that the client does not hold as its current pair: here the loser
    // presented a rotated token, which is reuse (RFC 9700 §4.14.2), so the whole grant ended.
    expect(active).toEqual([false, false, false, false]);
    for (const token of [original.access_token, pair.access_token]) {
      expect((await send('/api/v1/students', { headers: bearer(token) })).status).toBe(401);
    }
  });
});
