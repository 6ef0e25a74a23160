/**
 * The keys a private_key_jwt client publishes at its jwks_uri, fetched over real TLS (a local
 * https server with a test CA that only this configuration trusts; host names mapped by a
 * stand-in resolver, no real DNS): the documents' fetcher and limits, their cache lifetime, one
 * fetch again for an unknown kid, and a cool-down that a caller sending random kids cannot get past.
 */
import { createLocalJWKSet, exportJWK, generateKeyPair, type CryptoKey, type JWK, SignJWT } from 'jose';
import { type AssertionKeySet, verifyClientAssertion } from '../../src/client-auth/client-assertion';
import {
  type CimdConfig,
  HostFetchBudget,
  KEY_REFETCH_COOLDOWN_MS,
  loadCimdConfig,
  MetadataDocumentError,
  MetadataDocumentFetchLimitError,
  RemoteKeySets,
} from '../../src/client-metadata-documents';
import { MemoryRateLimitStore } from '@platform/rate-limits';
import { DocumentHost, mappedResolver } from './support/document-host';
import { createTestCertificates, type TestCertificates } from './support/test-ca';

const NAMES = ['agent.example', 'keys.example'];
const LOOPBACK = Object.fromEntries(NAMES.map((name) => [name, '127.0.0.1']));
const CLIENT = 'https://agent.example/oauth/client.json';
const AUDIENCE = 'https://platform.example';

let certs: TestCertificates;
let host: DocumentHost;
let clock = 0;
let pathCounter = 0;
const freshPath = () => `/k${++pathCounter}/jwks.json`;

type Key = { privateKey: CryptoKey; jwk: JWK };
let first: Key;
let second: Key;

async function key(kid: string): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid } };
}

function config(env: Record<string, string> = {}): CimdConfig {
  return loadCimdConfig({ NODE_ENV: 'test', CIMD_ALLOW_SPECIAL_USE_HOSTS: 'true', CIMD_EXTRA_CA_FILE: certs.caFile, CIMD_FETCH_TIMEOUT_MS: '1000', ...env });
}

function keySets(settings = config(), names: Record<string, string> = LOOPBACK): RemoteKeySets {
  const overrides = { resolver: mappedResolver(names), now: () => clock };
  return new RemoteKeySets(settings, new HostFetchBudget(settings, new MemoryRateLimitStore(10_000, () => clock)), overrides);
}

/** The AssertionKeySet ClientAssertionKeys builds for a jwks_uri. */
function fromUri(sets: RemoteKeySets, uri: string): AssertionKeySet {
  return {
    current: async () => createLocalJWKSet(await sets.get(uri)),
    refreshed: async () => {
      const again = await sets.refetch(uri);
      return again ? createLocalJWKSet(again) : null;
    },
  };
}

function assertion(signer: Key, kid = signer.jwk.kid as string): Promise<string> {
  const now = Math.floor(clock / 1000);
  return new SignJWT({ iss: CLIENT, sub: CLIENT, aud: AUDIENCE, exp: now + 60, iat: now, jti: `j${Math.random()}` })
    .setProtectedHeader({ alg: 'ES256', kid })
    .sign(signer.privateKey);
}

const verify = (keys: AssertionKeySet, jwt: string) => verifyClientAssertion(jwt, keys, { clientId: CLIENT, audiences: [AUDIENCE], now: Math.floor(clock / 1000) });

/** Serves whatever `current.keys` holds at the time of each request. */
function serveKeys(path: string, current: { keys: JWK[] }, headers: Record<string, string> = {}): string {
  return host.route('keys.example', path, (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ keys: current.keys }));
  });
}

beforeAll(async () => {
  certs = createTestCertificates(NAMES);
  host = await new DocumentHost(certs).start();
  first = await key('k1');
  second = await key('k2');
}, 60_000);

afterAll(async () => {
  await host?.stop();
  certs?.cleanup();
});

beforeEach(() => {
  clock = Date.now() + pathCounter * 10_000_000;
});

describe('keys at a jwks_uri', () => {
  it('are fetched once and served from the cache', async () => {
    const path = freshPath();
    const uri = serveKeys(path, { keys: [first.jwk] });
    const keys = fromUri(keySets(), uri);
    await verify(keys, await assertion(first));
    await verify(keys, await assertion(first));
    expect(host.hitCount('keys.example', path)).toBe(1);
  });

  it('an unknown kid (a rotation) fetches the set once more, and the new key verifies', async () => {
    const path = freshPath();
    const published = { keys: [first.jwk] };
    const uri = serveKeys(path, published);
    const sets = keySets();
    await verify(fromUri(sets, uri), await assertion(first));
    clock += KEY_REFETCH_COOLDOWN_MS;
    published.keys = [first.jwk, second.jwk];
    await expect(verify(fromUri(sets, uri), await assertion(second))).resolves.toMatchObject({ jti: expect.any(String) });
    expect(host.hitCount('keys.example', path)).toBe(2);
  });

  it('random kids cannot make the server fetch more than once per cool-down', async () => {
    const path = freshPath();
    const uri = serveKeys(path, { keys: [first.jwk] });
    const sets = keySets();
    await verify(fromUri(sets, uri), await assertion(first));
    // Within the cool-down of that first fetch, an unknown kid fetches nothing.
    await expect(verify(fromUri(sets, uri), await assertion(first, 'random-early'))).rejects.toMatchObject({ error: 'invalid_client' });
    expect(host.hitCount('keys.example', path)).toBe(1);
    clock += KEY_REFETCH_COOLDOWN_MS;
    const attempts = await Promise.allSettled(Array.from({ length: 50 }, async (_v, i) => verify(fromUri(sets, uri), await assertion(first, `random-${i}`))));
    expect(attempts.every((attempt) => attempt.status === 'rejected')).toBe(true);
    // Fifty unknown kids at once: one fetch more, the cool-down holds off the rest.
    expect(host.hitCount('keys.example', path)).toBe(2);
    clock += KEY_REFETCH_COOLDOWN_MS - 1;
    await expect(verify(fromUri(sets, uri), await assertion(first, 'random-late'))).rejects.toMatchObject({ error: 'invalid_client' });
    expect(host.hitCount('keys.example', path)).toBe(2);
    clock += 1;
    await expect(verify(fromUri(sets, uri), await assertion(first, 'random-later'))).rejects.toMatchObject({ error: 'invalid_client' });
    expect(host.hitCount('keys.example', path)).toBe(3);
  });

  it('are held for their HTTP lifetime (clamped as documents are), then fetched again', async () => {
    const path = freshPath();
    const published = { keys: [first.jwk] };
    const uri = serveKeys(path, published, { 'cache-control': 'max-age=120' });
    const sets = keySets();
    expect((await sets.get(uri)).keys.map((k) => k.kid)).toEqual(['k1']);
    published.keys = [second.jwk];
    clock += 119_000;
    expect((await sets.get(uri)).keys.map((k) => k.kid)).toEqual(['k1']);
    clock += 2_000;
    expect((await sets.get(uri)).keys.map((k) => k.kid)).toEqual(['k2']);
    expect(host.hitCount('keys.example', path)).toBe(2);
  });
});

describe('refusals of a jwks_uri: invalid_client, never a 500', () => {
  const refusal = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(MetadataDocumentError);
    return (error as MetadataDocumentError).description;
  };

  it('a set holding a private key', async () => {
    const path = freshPath();
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const uri = host.json('keys.example', path, { keys: [{ ...(await exportJWK(privateKey)), kid: 'leaked' }] });
    expect(await refusal(keySets().get(uri))).toContain('Client key set refused: the jwks_uri does not hold a usable JWK Set: key 1: this is a private key');
  });

  it('an answer that is not JSON', async () => {
    const path = freshPath();
    const uri = host.route('keys.example', path, (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>'));
    expect(await refusal(keySets().get(uri))).toContain('the jwks_uri must answer with Content-Type application/json');
  });

  it('a redirect (never followed)', async () => {
    const path = freshPath();
    const uri = host.route('keys.example', path, (_req, res) => res.writeHead(302, { location: 'https://keys.example/elsewhere' }).end());
    expect(await refusal(keySets().get(uri))).toContain('redirects are not followed');
  });

  it('a host resolving to a special-use address', async () => {
    const settings = config({ CIMD_ALLOW_SPECIAL_USE_HOSTS: 'false' });
    expect(await refusal(keySets(settings, { 'keys.example': '10.0.0.7' }).get(`https://keys.example:${host.port}/jwks.json`))).toContain('special-use address');
  });

  it('a set larger than the limit', async () => {
    const path = freshPath();
    const uri = host.json('keys.example', path, { keys: [first.jwk], padding: 'x'.repeat(20_000) });
    expect(await refusal(keySets().get(uri))).toContain('larger than');
  });

  it('key sets count against the host fetch budget (429, no fetch)', async () => {
    const sets = keySets(config({ CIMD_FETCHES_PER_HOST_PER_MINUTE: '2' }));
    const paths = [freshPath(), freshPath(), freshPath()];
    for (const path of paths) serveKeys(path, { keys: [first.jwk] });
    await sets.get(host.url('keys.example', paths[0]));
    await sets.get(host.url('keys.example', paths[1]));
    await expect(sets.get(host.url('keys.example', paths[2]))).rejects.toBeInstanceOf(MetadataDocumentFetchLimitError);
    expect(host.hitCount('keys.example', paths[2])).toBe(0);
  });
});
