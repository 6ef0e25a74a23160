import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { InvalidDpopProofError, UseDpopNonceError } from '@platform/oauth-errors';
import { DpopNonces } from './dpop-nonces';
import { accessTokenHash, DpopProofVerifier, type DpopReplayGuard } from './dpop-proof-verifier';

const NOW = 1_750_000_000_000;
const URL_ = 'https://platform.example/oauth/token';

class MemoryReplay implements DpopReplayGuard {
  readonly seen = new Map<string, Date>();
  async firstUse(key: string, expiresAt: Date) {
    if (this.seen.has(key)) return false;
    this.seen.set(key, expiresAt);
    return true;
  }
}

interface KeyPair {
  privateKey: CryptoKey;
  publicJwk: JWK;
}

let es256: KeyPair;
let other: KeyPair;
let ed25519: KeyPair;

beforeAll(async () => {
  const make = async (alg: string): Promise<KeyPair> => {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    return { privateKey, publicJwk: await exportJWK(publicKey) };
  };
  [es256, other, ed25519] = await Promise.all([make('ES256'), make('ES256'), make('Ed25519')]);
});

interface ProofOptions {
  key?: KeyPair;
  alg?: string;
  typ?: string;
  jwk?: JWK | string;
  claims?: Record<string, unknown>;
}

let counter = 0;
async function proof(options: ProofOptions = {}): Promise<string> {
  const key = options.key ?? es256;
  const claims = { jti: `jti-${++counter}`, htm: 'POST', htu: URL_, iat: NOW / 1000, ...options.claims };
  for (const [name, value] of Object.entries(claims)) if (value === undefined) delete (claims as Record<string, unknown>)[name];
  return new SignJWT(claims)
    .setProtectedHeader({ alg: options.alg ?? 'ES256', typ: options.typ ?? 'dpop+jwt', jwk: (options.jwk ?? key.publicJwk) as JWK })
    .sign(key.privateKey);
}

function verifier(overrides: Partial<ConstructorParameters<typeof DpopProofVerifier>[0]> = {}) {
  return new DpopProofVerifier({ maxAgeSeconds: 60, replay: new MemoryReplay(), clock: () => NOW, ...overrides });
}

async function refusal(promise: Promise<unknown>): Promise<InvalidDpopProofError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(InvalidDpopProofError);
  return error as InvalidDpopProofError;
}

describe('DpopProofVerifier', () => {
  it('accepts a well-formed proof and answers the RFC 7638 thumbprint of its key', async () => {
    const jwt = await proof({ claims: { jti: 'the-jti' } });
    await expect(verifier().verify({ proof: jwt, method: 'POST', url: URL_ })).resolves.toEqual({
      jkt: await calculateJwkThumbprint(es256.publicJwk, 'sha256'),
      jti: 'the-jti',
      iat: NOW / 1000,
    });
  });

  it('accepts an Ed25519 proof (the algorithm oauth4webapi names Ed25519)', async () => {
    const jwt = await proof({ key: ed25519, alg: 'Ed25519' });
    await expect(verifier().verify({ proof: jwt, method: 'POST', url: URL_ })).resolves.toMatchObject({
      jkt: await calculateJwkThumbprint(ed25519.publicJwk, 'sha256'),
    });
  });

  it('refuses a request without a DPoP header', async () => {
    expect((await refusal(verifier().verify({ proof: undefined, method: 'POST', url: URL_ }))).description).toBe(
      'Exactly one DPoP header is required',
    );
  });

  it('refuses two DPoP headers, as an array or joined by Node', async () => {
    const [a, b] = [await proof(), await proof()];
    await refusal(verifier().verify({ proof: [a, b], method: 'POST', url: URL_ }));
    expect((await refusal(verifier().verify({ proof: `${a}, ${b}`, method: 'POST', url: URL_ }))).description).toBe(
      'The DPoP header is not a single well-formed JWT',
    );
  });

  it('refuses a value that is not a JWT', async () => {
    expect((await refusal(verifier().verify({ proof: 'not-a-jwt', method: 'POST', url: URL_ }))).description).toBe(
      'The DPoP header is not a single well-formed JWT',
    );
    await refusal(verifier().verify({ proof: 'a.b.c', method: 'POST', url: URL_ }));
  });

  it('refuses a proof whose typ is not dpop+jwt', async () => {
    const error = await refusal(verifier().verify({ proof: await proof({ typ: 'JWT' }), method: 'POST', url: URL_ }));
    expect(error.description).toBe('The DPoP proof is invalid');
    expect(error.internalDetail).toMatch(/typ/);
  });

  it('refuses an algorithm outside the allow-list', async () => {
    const onlyRs = verifier({ algorithms: ['RS256'] });
    const error = await refusal(onlyRs.verify({ proof: await proof(), method: 'POST', url: URL_ }));
    expect(error.internalDetail).toMatch(/alg/);
  });

  it('refuses a symmetric algorithm (HS256 signed with the key in the header)', async () => {
    const secret = new Uint8Array(32).fill(7);
    const jwt = await new SignJWT({ jti: 'x', htm: 'POST', htu: URL_, iat: NOW / 1000 })
      .setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk: { kty: 'oct', k: Buffer.from(secret).toString('base64url') } as JWK })
      .sign(secret);
    await refusal(verifier().verify({ proof: jwt, method: 'POST', url: URL_ }));
  });

  it('refuses to be configured with a symmetric algorithm', () => {
    expect(() => verifier({ algorithms: ['ES256', 'HS256'] })).toThrow(/HS256/);
  });

  it('refuses alg none', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'dpop+jwt', jwk: es256.publicJwk })).toString('base64url');
    const body = Buffer.from(JSON.stringify({ jti: 'x', htm: 'POST', htu: URL_, iat: NOW / 1000 })).toString('base64url');
    await refusal(verifier().verify({ proof: `${header}.${body}.`, method: 'POST', url: URL_ }));
    await refusal(verifier().verify({ proof: `${header}.${body}.AAAA`, method: 'POST', url: URL_ }));
  });

  it('refuses a proof without a jwk header', async () => {
    const jwt = await new SignJWT({ jti: 'x', htm: 'POST', htu: URL_, iat: NOW / 1000 })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt' })
      .sign(es256.privateKey);
    expect((await refusal(verifier().verify({ proof: jwt, method: 'POST', url: URL_ }))).description).toBe('The DPoP proof has no jwk header');
  });

  it('refuses a jwk that carries the private key', async () => {
    const privateJwk = await exportJWK(es256.privateKey);
    expect(privateJwk.d).toBeDefined();
    const error = await refusal(verifier().verify({ proof: await proof({ jwk: privateJwk }), method: 'POST', url: URL_ }));
    expect(error.description).toBe('The DPoP proof jwk must be a public key');
  });

  it('refuses a signature made by another key than the one in the header', async () => {
    const jwt = await proof({ key: { privateKey: other.privateKey, publicJwk: es256.publicJwk } });
    expect((await refusal(verifier().verify({ proof: jwt, method: 'POST', url: URL_ }))).internalDetail).toMatch(/signature/);
  });

  it('checks every signature when the key was seen before: a second proof of that key passes, a forged one does not', async () => {
    const verifying = verifier();
    await verifying.verify({ proof: await proof(), method: 'POST', url: URL_ });
    await expect(verifying.verify({ proof: await proof(), method: 'POST', url: URL_ })).resolves.toMatchObject({
      jkt: await calculateJwkThumbprint(es256.publicJwk, 'sha256'),
    });
    const forged = await proof({ key: { privateKey: other.privateKey, publicJwk: es256.publicJwk } });
    expect((await refusal(verifying.verify({ proof: forged, method: 'POST', url: URL_ }))).internalDetail).toMatch(/signature/);
  });

  it('refuses a jwk that names no key (no thumbprint can be made of it)', async () => {
    const jwt = await proof({ jwk: { kty: 'EC', crv: 'P-256' } });
    expect((await refusal(verifier().verify({ proof: jwt, method: 'POST', url: URL_ }))).description).toBe('The DPoP proof jwk is not a usable public key');
  });

  it.each([['jti'], ['htm'], ['htu'], ['iat']])('refuses a proof without %s', async (claim) => {
    const jwt = await proof({ claims: { [claim]: undefined } });
    await refusal(verifier().verify({ proof: jwt, method: 'POST', url: URL_ }));
  });

  it('refuses a proof for another method', async () => {
    const error = await refusal(verifier().verify({ proof: await proof({ claims: { htm: 'GET' } }), method: 'POST', url: URL_ }));
    expect(error.description).toBe('The DPoP proof is for another HTTP method');
  });

  it('refuses a proof for another URL', async () => {
    const jwt = await proof({ claims: { htu: 'https://platform.example/oauth/revoke' } });
    expect((await refusal(verifier().verify({ proof: jwt, method: 'POST', url: URL_ }))).description).toBe('The DPoP proof is for another URL');
    const otherOrigin = await proof({ claims: { htu: 'https://evil.example/oauth/token' } });
    await refusal(verifier().verify({ proof: otherOrigin, method: 'POST', url: URL_ }));
  });

  it('compares htu without query and fragment, after normalisation', async () => {
    const v = verifier();
    for (const htu of [
      'https://platform.example/oauth/token?x=1#frag',
      'HTTPS://Platform.Example:443/oauth/token',
      'https://platform.example/oauth/./%74oken',
    ]) {
      await expect(v.verify({ proof: await proof({ claims: { htu } }), method: 'POST', url: URL_ })).resolves.toBeDefined();
    }
  });

  it('refuses a proof older than the window, and one from the future beyond the skew', async () => {
    const old = await proof({ claims: { iat: NOW / 1000 - 61 } });
    expect((await refusal(verifier().verify({ proof: old, method: 'POST', url: URL_ }))).description).toBe('The DPoP proof is too old');
    const future = await proof({ claims: { iat: NOW / 1000 + 6 } });
    expect((await refusal(verifier().verify({ proof: future, method: 'POST', url: URL_ }))).description).toBe(
      'The DPoP proof is issued in the future',
    );
    const withinSkew = await proof({ claims: { iat: NOW / 1000 + 5 } });
    await expect(verifier().verify({ proof: withinSkew, method: 'POST', url: URL_ })).resolves.toBeDefined();
  });

  it('refuses a replayed proof, and keeps its jti until the window has passed', async () => {
    const replay = new MemoryReplay();
    const v = verifier({ replay });
    const jwt = await proof();
    await v.verify({ proof: jwt, method: 'POST', url: URL_ });
    expect((await refusal(v.verify({ proof: jwt, method: 'POST', url: URL_ }))).description).toBe('The DPoP proof was used before');
    expect([...replay.seen.values()]).toEqual([new Date(NOW + 61_000)]);
  });

  it('uses up no jti with a proof refused for another reason', async () => {
    const replay = new MemoryReplay();
    await refusal(verifier({ replay }).verify({ proof: await proof({ claims: { htm: 'GET' } }), method: 'POST', url: URL_ }));
    expect(replay.seen.size).toBe(0);
  });

  describe('with an access token (ath)', () => {
    it('accepts the hash of the token', async () => {
      const jwt = await proof({ claims: { htm: 'GET', ath: accessTokenHash('the-token') } });
      await expect(verifier().verify({ proof: jwt, method: 'GET', url: URL_, accessToken: 'the-token' })).resolves.toBeDefined();
    });

    it('refuses a proof without ath or for another token', async () => {
      const without = await proof({ claims: { htm: 'GET' } });
      await refusal(verifier().verify({ proof: without, method: 'GET', url: URL_, accessToken: 'the-token' }));
      const another = await proof({ claims: { htm: 'GET', ath: accessTokenHash('another-token') } });
      expect((await refusal(verifier().verify({ proof: another, method: 'GET', url: URL_, accessToken: 'the-token' }))).description).toBe(
        'The DPoP proof is for another access token',
      );
    });
  });

  describe('with server nonces', () => {
    const nonces = new DpopNonces(new Uint8Array(32).fill(1), 300, () => NOW);

    it('refuses a proof without a nonce with use_dpop_nonce and a fresh nonce in DPoP-Nonce', async () => {
      const error = await verifier({ nonces })
        .verify({ proof: await proof(), method: 'POST', url: URL_, nonceRequired: true })
        .catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(UseDpopNonceError);
      expect((error as UseDpopNonceError).headers).toEqual({ 'dpop-nonce': nonces.current() });
      expect((error as UseDpopNonceError).status).toBe(400);
    });

    it('refuses a nonce it did not issue', async () => {
      const jwt = await proof({ claims: { nonce: 'made-up' } });
      await expect(verifier({ nonces }).verify({ proof: jwt, method: 'POST', url: URL_, nonceRequired: true })).rejects.toBeInstanceOf(
        UseDpopNonceError,
      );
    });

    it('accepts the nonce it issued', async () => {
      const jwt = await proof({ claims: { nonce: nonces.current() } });
      await expect(verifier({ nonces }).verify({ proof: jwt, method: 'POST', url: URL_, nonceRequired: true })).resolves.toBeDefined();
    });
  });
});
