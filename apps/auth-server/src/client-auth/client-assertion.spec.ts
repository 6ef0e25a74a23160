import { InvalidClientError } from '@platform/oauth-errors';
import { createLocalJWKSet, type CryptoKey, exportJWK, generateKeyPair, type JSONWebKeySet, type JWK, type JWTPayload, SignJWT } from 'jose';
import { ASSERTION_CLOCK_SKEW_SECONDS, ASSERTION_MAX_LIFETIME_SECONDS } from '../clients/client-assertion-rules';
import { type AssertionKeySet, verifyClientAssertion } from './client-assertion';

/**
 * Table-driven spec of the private_key_jwt assertion rules (RFC 7523 §3, OpenID Connect Core §9):
 * each case signs a real JWT with real keys (jose) and names the outcome: accepted, or the
 * invalid_client and the words its error_description must contain.
 */

const CLIENT = 'https://agent.example/oauth/client.json';
const ISSUER = 'https://platform.example';
const TOKEN_ENDPOINT = `${ISSUER}/api/oauth/token`;
const NOW = 1_900_000_000;

type Pair = { privateKey: CryptoKey; publicJwk: JWK };
const pairs: Record<'rsa' | 'rsaOther' | 'ec' | 'ed' | 'rsaSecond' | 'ps', Pair> = {} as never;

async function pair(alg: string, kid: string): Promise<Pair> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid } };
}

// Four RSA key pairs are made at once on libuv's threads; on a busy machine that can still take
// longer than jest's default 5 s for a hook.
beforeAll(async () => {
  [pairs.rsa, pairs.rsaOther, pairs.rsaSecond, pairs.ps, pairs.ec, pairs.ed] = await Promise.all([
    pair('RS256', 'rsa-1'),
    pair('RS256', 'rsa-1'), // the same kid, another key: a forgery
    pair('RS256', 'rsa-2'),
    pair('PS256', 'ps-1'),
    pair('ES256', 'ec-1'),
    pair('Ed25519', 'ed-1'),
  ]);
}, 60_000);

const claims = (overrides: JWTPayload = {}): JWTPayload => ({
  iss: CLIENT,
  sub: CLIENT,
  aud: TOKEN_ENDPOINT,
  exp: NOW + 60,
  iat: NOW,
  jti: 'assertion-1',
  ...overrides,
});

/** A compact JWS signed by `signer` with `alg`; `kid` undefined for none, omitted when `kid: null`. */
function sign(signer: keyof typeof pairs, alg: string, payload: JWTPayload, kid?: string | null): Promise<string> {
  const header = { alg, ...(kid === null ? {} : { kid: kid ?? pairs[signer].publicJwk.kid }) };
  return new SignJWT(payload).setProtectedHeader(header).sign(pairs[signer].privateKey);
}

const unsigned = (payload: JWTPayload) =>
  `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.`;

const hmac = (payload: JWTPayload) => new SignJWT(payload).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('a-shared-secret-of-32-bytes-long!'));

/** Inline keys: nothing to fetch again. */
function inline(...keys: (keyof typeof pairs)[]): AssertionKeySet {
  const set: JSONWebKeySet = { keys: keys.map((name) => pairs[name].publicJwk) };
  return { current: async () => createLocalJWKSet(set), refreshed: async () => null };
}

interface Case {
  name: string;
  assertion: () => Promise<string> | string;
  keys?: () => AssertionKeySet;
  expected: 'accepted' | string;
}

const cases: Case[] = [
  { name: 'RS256 with a kid, aud the token endpoint', assertion: () => sign('rsa', 'RS256', claims()), expected: 'accepted' },
  { name: 'aud the issuer identifier', assertion: () => sign('rsa', 'RS256', claims({ aud: ISSUER })), expected: 'accepted' },
  { name: 'aud an array holding the token endpoint (RFC 7523 §3)', assertion: () => sign('rsa', 'RS256', claims({ aud: ['https://elsewhere.example', TOKEN_ENDPOINT] })), expected: 'accepted' },
  { name: 'PS256', assertion: () => sign('ps', 'PS256', claims()), keys: () => inline('rsa', 'ps'), expected: 'accepted' },
  { name: 'ES256', assertion: () => sign('ec', 'ES256', claims()), keys: () => inline('rsa', 'ec'), expected: 'accepted' },
  { name: 'EdDSA (Ed25519)', assertion: () => sign('ed', 'EdDSA', claims()), keys: () => inline('ed'), expected: 'accepted' },
  { name: 'Ed25519 (RFC 9864 name)', assertion: () => sign('ed', 'Ed25519', claims()), keys: () => inline('ed'), expected: 'accepted' },
  { name: 'no kid, one key of its type', assertion: () => sign('rsa', 'RS256', claims(), null), keys: () => inline('rsa', 'ec'), expected: 'accepted' },
  { name: 'no kid, two RSA keys: each is tried', assertion: () => sign('rsaSecond', 'RS256', claims(), null), keys: () => inline('rsa', 'rsaSecond'), expected: 'accepted' },
  { name: 'no iat (optional)', assertion: () => sign('rsa', 'RS256', claims({ iat: undefined })), expected: 'accepted' },
  { name: 'exp passed within the clock skew', assertion: () => sign('rsa', 'RS256', claims({ exp: NOW - ASSERTION_CLOCK_SKEW_SECONDS + 1 })), expected: 'accepted' },
  { name: `exp at the longest (${ASSERTION_MAX_LIFETIME_SECONDS} s)`, assertion: () => sign('rsa', 'RS256', claims({ exp: NOW + ASSERTION_MAX_LIFETIME_SECONDS })), expected: 'accepted' },

  { name: 'signed by another key under the same kid (a wrong key)', assertion: () => sign('rsaOther', 'RS256', claims()), expected: 'signature does not verify' },
  { name: 'a kid the client does not have', assertion: () => sign('rsaSecond', 'RS256', claims()), expected: "none of the client's keys matches" },
  { name: 'an alg the key does not fit (ES256 header, RSA keys only)', assertion: () => sign('ec', 'ES256', claims(), null), expected: "none of the client's keys matches" },
  { name: 'expired', assertion: () => sign('rsa', 'RS256', claims({ exp: NOW - 60 })), expected: 'has expired' },
  { name: 'alg none', assertion: () => unsigned(claims()), expected: 'alg none' },
  { name: 'HS256 (a shared secret)', assertion: () => hmac(claims()), expected: 'HMAC' },
  { name: 'an alg outside the list', assertion: () => `${Buffer.from('{"alg":"RS1"}').toString('base64url')}.e30.c2ln`, expected: 'alg is not accepted' },
  { name: 'aud another server', assertion: () => sign('rsa', 'RS256', claims({ aud: 'https://other-server.example/token' })), expected: 'aud must be the issuer identifier or the token endpoint URL' },
  { name: 'aud an array without this server', assertion: () => sign('rsa', 'RS256', claims({ aud: ['https://a.example', 'https://b.example'] })), expected: 'aud must be' },
  { name: 'aud this server’s authorization endpoint', assertion: () => sign('rsa', 'RS256', claims({ aud: `${ISSUER}/oauth/authorize` })), expected: 'aud must be' },
  { name: 'iss not the client_id', assertion: () => sign('rsa', 'RS256', claims({ iss: 'https://attacker.example' })), expected: 'iss must be the client_id' },
  { name: 'sub not the client_id', assertion: () => sign('rsa', 'RS256', claims({ sub: 'someone-else' })), expected: 'sub must be the client_id' },
  { name: 'no exp', assertion: () => sign('rsa', 'RS256', claims({ exp: undefined })), expected: 'exp claim is missing' },
  { name: 'no jti', assertion: () => sign('rsa', 'RS256', claims({ jti: undefined })), expected: 'jti claim is missing' },
  { name: 'no aud', assertion: () => sign('rsa', 'RS256', claims({ aud: undefined })), expected: 'aud' },
  { name: 'a jti of 257 characters', assertion: () => sign('rsa', 'RS256', claims({ jti: 'j'.repeat(257) })), expected: 'jti must be a string of 1 to 256' },
  { name: `exp more than ${ASSERTION_MAX_LIFETIME_SECONDS} s away`, assertion: () => sign('rsa', 'RS256', claims({ exp: NOW + 3600 })), expected: 'make assertions short-lived' },
  { name: 'iat in the future', assertion: () => sign('rsa', 'RS256', claims({ iat: NOW + 120 })), expected: 'iat is in the future' },
  { name: 'nbf in the future', assertion: () => sign('rsa', 'RS256', claims({ nbf: NOW + 120 })), expected: 'not valid yet' },
  { name: 'not a JWT', assertion: () => 'not-a-jwt', expected: 'not a JWT' },
  {
    name: 'a payload changed after signing',
    assertion: async () => {
      const [header, , signature] = (await sign('rsa', 'RS256', claims())).split('.');
      return `${header}.${Buffer.from(JSON.stringify(claims({ sub: CLIENT, jti: 'other' }))).toString('base64url')}.${signature}`;
    },
    expected: 'signature does not verify',
  },
];

describe('verifyClientAssertion (RFC 7523 §3, OpenID Connect Core §9)', () => {
  it.each(cases)('$name → $expected', async ({ assertion, keys, expected }) => {
    const outcome = verifyClientAssertion(await assertion(), (keys ?? (() => inline('rsa')))(), {
      clientId: CLIENT,
      audiences: [ISSUER, TOKEN_ENDPOINT],
      now: NOW,
    });
    if (expected === 'accepted') {
      await expect(outcome).resolves.toMatchObject({ jti: expect.any(String) });
      return;
    }
    const error = await outcome.then(
      () => undefined,
      (refusal: unknown) => refusal,
    );
    expect(error).toBeInstanceOf(InvalidClientError);
    expect(error).toMatchObject({ error: 'invalid_client', status: 401 });
    expect((error as InvalidClientError).description).toContain(expected);
    expect((error as InvalidClientError).description).toMatch(/^Client authentication failed: /);
  });

  it('remembers the jti until exp plus the clock skew', async () => {
    const verified = await verifyClientAssertion(await sign('rsa', 'RS256', claims({ exp: NOW + 30 })), inline('rsa'), {
      clientId: CLIENT,
      audiences: [TOKEN_ENDPOINT],
      now: NOW,
    });
    expect(verified).toEqual({ jti: 'assertion-1', acceptedUntil: new Date((NOW + 30 + ASSERTION_CLOCK_SKEW_SECONDS) * 1000) });
  });
});

describe('keys fetched again for an unknown kid (a jwks_uri after a rotation)', () => {
  const expectations = () => ({ clientId: CLIENT, audiences: [TOKEN_ENDPOINT], now: NOW });

  it('an unknown kid fetches the set once more, and the new key verifies', async () => {
    const refreshes: number[] = [];
    const keys: AssertionKeySet = {
      current: async () => createLocalJWKSet({ keys: [pairs.rsa.publicJwk] }),
      refreshed: async () => {
        refreshes.push(1);
        return createLocalJWKSet({ keys: [pairs.rsa.publicJwk, pairs.rsaSecond.publicJwk] });
      },
    };
    await expect(verifyClientAssertion(await sign('rsaSecond', 'RS256', claims()), keys, expectations())).resolves.toMatchObject({ jti: 'assertion-1' });
    expect(refreshes).toHaveLength(1);
  });

  it('a known kid never fetches again, even when the signature fails', async () => {
    const refreshes: number[] = [];
    const keys: AssertionKeySet = {
      current: async () => createLocalJWKSet({ keys: [pairs.rsa.publicJwk] }),
      refreshed: async () => {
        refreshes.push(1);
        return null;
      },
    };
    await expect(verifyClientAssertion(await sign('rsaOther', 'RS256', claims()), keys, expectations())).rejects.toMatchObject({ error: 'invalid_client' });
    expect(refreshes).toHaveLength(0);
  });

  it('within the cool-down (no refreshed set) the unknown kid is refused', async () => {
    const keys: AssertionKeySet = { current: async () => createLocalJWKSet({ keys: [pairs.rsa.publicJwk] }), refreshed: async () => null };
    await expect(verifyClientAssertion(await sign('rsaSecond', 'RS256', claims()), keys, expectations())).rejects.toMatchObject({
      description: expect.stringContaining("none of the client's keys matches"),
    });
  });

  it('a failure to get the keys is passed on as it is (not blamed on the assertion)', async () => {
    const outage = new Error('database unavailable');
    const keys: AssertionKeySet = { current: async () => Promise.reject(outage), refreshed: async () => null };
    await expect(verifyClientAssertion(await sign('rsa', 'RS256', claims()), keys, expectations())).rejects.toBe(outage);
  });
});
