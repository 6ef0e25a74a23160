import { generateKeyPairSync } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';
import { checkPublicKeySet, jwksUriProblem, MAX_PUBLIC_KEYS } from './public-key-set';

/** The public key sets a private_key_jwt client may register, and every kind of key refused. */

let rsa: Record<string, unknown>;
let rsaPrivate: Record<string, unknown>;
let ec: Record<string, unknown>;
let ed: Record<string, unknown>;
let smallRsa: Record<string, unknown>;

beforeAll(async () => {
  const rsaPair = await generateKeyPair('RS256', { extractable: true });
  rsa = { ...(await exportJWK(rsaPair.publicKey)), kid: 'rsa' };
  rsaPrivate = { ...(await exportJWK(rsaPair.privateKey)), kid: 'rsa' };
  ec = { ...(await exportJWK((await generateKeyPair('ES256', { extractable: true })).publicKey)), kid: 'ec' };
  ed = { ...(await exportJWK((await generateKeyPair('Ed25519', { extractable: true })).publicKey)), kid: 'ed' };
  // jose refuses to make one; node:crypto still can.
  smallRsa = { ...generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' }), kid: 'small' };
});

const problemOf = (value: unknown) => {
  const checked = checkPublicKeySet(value);
  return 'problem' in checked ? checked.problem : 'accepted';
};

describe('checkPublicKeySet', () => {
  it('accepts RSA (2048 bits and more), EC and Ed25519 public keys, keeping only what a verifier reads', () => {
    const checked = checkPublicKeySet({ keys: [{ ...rsa, use: 'sig', alg: 'RS256', x5c: ['MIIB'] }, ec, ed] });
    expect(checked).toEqual({ keySet: { keys: [{ ...rsa, use: 'sig', alg: 'RS256' }, ec, ed] } });
  });

  it.each([
    ['not an object', 'keys', 'JSON object with a keys array'],
    ['no keys', {}, 'non-empty keys array'],
    ['too many keys', { keys: Array.from({ length: MAX_PUBLIC_KEYS + 1 }, (_v, i) => ({ kty: 'OKP', crv: 'Ed25519', x: 'AAAA', kid: `k${i}` })) }, `at most ${MAX_PUBLIC_KEYS}`],
    ['a symmetric key (kty oct)', { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] }, 'symmetric key'],
    ['a k member on any key', { keys: [{ kty: 'EC', k: 'c2VjcmV0' }] }, 'symmetric key'],
    ['an unknown kty', { keys: [{ kty: 'XYZ' }] }, 'kty must be RSA, EC or OKP'],
    ['an encryption key (use enc)', { keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'AAAA', use: 'enc' }] }, 'use must be sig'],
    ['an HMAC alg on a key', { keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'AAAA', alg: 'HS256' }] }, 'alg must be one of'],
    ['key_ops without verify', { keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'AAAA', key_ops: ['encrypt'] }] }, 'key_ops must include verify'],
    ['an EC key on another curve', { keys: [{ kty: 'EC', crv: 'secp256k1', x: 'AAAA', y: 'AAAA' }] }, 'an EC key must be on'],
    ['an X25519 key', { keys: [{ kty: 'OKP', crv: 'X25519', x: 'AAAA' }] }, 'must be Ed25519'],
    ['an RSA key without e', { keys: [{ kty: 'RSA', n: 'AAAA' }] }, 'needs n and e'],
    ['two keys under one kid', { keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'AAAA', kid: 'a' }, { kty: 'OKP', crv: 'Ed25519', x: 'BBBB', kid: 'a' }] }, 'used twice'],
  ])('refuses %s', (_name, value, problem) => {
    expect(problemOf(value)).toContain(problem);
  });

  it('refuses a private RSA key (d and the primes): it must never leave the client', () => {
    expect(problemOf({ keys: [rsaPrivate] })).toContain('this is a private key');
  });

  it('refuses an RSA key under 2048 bits (RFC 7518 §3.3)', () => {
    expect(problemOf({ keys: [smallRsa] })).toContain('at least 2048 bits');
  });
});

describe('jwksUriProblem', () => {
  it.each([
    ['https://app.example.com/.well-known/jwks.json', null],
    ['https://app.example.com:8443/jwks?v=2', null],
    ['http://app.example.com/jwks.json', 'must use https'],
    ['https://user:pw@app.example.com/jwks.json', 'username or password'],
    ['https://app.example.com/jwks.json#keys', 'fragment'],
    ['https://APP.example.com/jwks.json', 'normalized form'],
    ['https://app.example.com:443/jwks.json', 'normalized form'],
    ['/jwks.json', 'not an absolute URL'],
    [`https://app.example.com/${'x'.repeat(2000)}`, 'at most 2000'],
  ])('%s → %s', (uri, problem) => {
    const found = jwksUriProblem(uri);
    if (problem === null) expect(found).toBeNull();
    else expect(found).toContain(problem);
  });
});
