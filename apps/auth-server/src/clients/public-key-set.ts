import type { JSONWebKeySet, JWK } from 'jose';
import { CLIENT_ASSERTION_ALGORITHMS } from './client-assertion-rules';

/** Keys a client's set may hold: a current key, its successor during a rotation, and room to spare. */
export const MAX_PUBLIC_KEYS = 10;

/** Members that carry private or symmetric key material (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;
const CURVES: Readonly<Record<string, readonly string[]>> = { EC: ['P-256', 'P-384', 'P-521'], OKP: ['Ed25519'] };
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** RFC 7518 §3.3 and §3.5: "A key of size 2048 bits or larger MUST be used" with RS* and PS*. */
const MIN_RSA_MODULUS_BITS = 2048;
const ACCEPTED_ALGORITHMS: ReadonlySet<string> = new Set(CLIENT_ASSERTION_ALGORITHMS);

/** The members a verifier reads; anything else a set carries (x5c chains, notes) is dropped. */
const PUBLIC_MEMBERS = ['kty', 'kid', 'use', 'alg', 'key_ops', 'n', 'e', 'crv', 'x', 'y'] as const;

/**
 * A client's private_key_jwt keys (an RFC 7517 JWK Set), checked before they are stored or used:
 * public signature keys only. A JWK carrying private material (`d` and the RSA primes) is refused:
 * whoever holds it can sign as the client, so it must never leave the client, let alone be
 * stored here; a symmetric key (`kty: oct`, `k`) is a shared secret, which this method exists to
 * avoid. Returns the set with only the members a verifier reads, or the problem in words.
 */
export function checkPublicKeySet(value: unknown): { keySet: JSONWebKeySet } | { problem: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { problem: 'a JWK Set must be a JSON object with a keys array' };
  const keys = (value as { keys?: unknown }).keys;
  if (!Array.isArray(keys) || keys.length === 0) return { problem: 'a JWK Set must have a non-empty keys array' };
  if (keys.length > MAX_PUBLIC_KEYS) return { problem: `a JWK Set may hold at most ${MAX_PUBLIC_KEYS} keys` };
  const checked: JWK[] = [];
  const kids = new Set<string>();
  for (const [index, key] of keys.entries()) {
    const problem = keyProblem(key);
    if (problem) return { problem: `key ${index + 1}: ${problem}` };
    const jwk = key as JWK;
    if (jwk.kid !== undefined) {
      // Two keys under one kid: which one signed could not be told from the assertion's header.
      if (kids.has(jwk.kid)) return { problem: `key ${index + 1}: kid ${jwk.kid} is used twice` };
      kids.add(jwk.kid);
    }
    checked.push(Object.fromEntries(PUBLIC_MEMBERS.flatMap((member) => (jwk[member] === undefined ? [] : [[member, jwk[member]]]))) as JWK);
  }
  return { keySet: { keys: checked } };
}

function keyProblem(key: unknown): string | null {
  if (typeof key !== 'object' || key === null || Array.isArray(key)) return 'not a JSON object';
  const jwk = key as Record<string, unknown>;
  if (jwk['kty'] === 'oct' || 'k' in jwk) return 'a symmetric key is a shared secret: give the public key of a key pair';
  if (PRIVATE_MEMBERS.some((member) => member in jwk)) return 'this is a private key: give only the public key (no d member)';
  if (jwk['kid'] !== undefined && (typeof jwk['kid'] !== 'string' || jwk['kid'].length === 0 || jwk['kid'].length > 200)) {
    return 'kid must be a string of 1 to 200 characters';
  }
  if (jwk['use'] !== undefined && jwk['use'] !== 'sig') return 'use must be sig (a signature key)';
  if (jwk['key_ops'] !== undefined && !(Array.isArray(jwk['key_ops']) && jwk['key_ops'].includes('verify'))) {
    return 'key_ops must include verify';
  }
  if (jwk['alg'] !== undefined && !ACCEPTED_ALGORITHMS.has(String(jwk['alg']))) {
    return `alg must be one of ${CLIENT_ASSERTION_ALGORITHMS.join(', ')}`;
  }
  const member = (name: string) => typeof jwk[name] === 'string' && (jwk[name] as string).length <= 2048 && BASE64URL.test(jwk[name] as string);
  switch (jwk['kty']) {
    case 'RSA': {
      if (!member('n') || !member('e')) return 'an RSA key needs n and e (base64url)';
      const modulus = Buffer.from(jwk['n'] as string, 'base64url');
      const bits = modulus.length * 8 - (modulus[0] === 0 ? 8 : Math.clz32(modulus[0]) - 24);
      return bits >= MIN_RSA_MODULUS_BITS ? null : `an RSA key must be at least ${MIN_RSA_MODULUS_BITS} bits`;
    }
    case 'EC':
      if (!CURVES['EC'].includes(String(jwk['crv']))) return `an EC key must be on ${CURVES['EC'].join(', ')}`;
      return member('x') && member('y') ? null : 'an EC key needs x and y (base64url)';
    case 'OKP':
      if (!CURVES['OKP'].includes(String(jwk['crv']))) return 'an OKP key must be Ed25519';
      return member('x') ? null : 'an OKP key needs x (base64url)';
    default:
      return 'kty must be RSA, EC or OKP';
  }
}

/** Longest jwks_uri accepted. */
export const MAX_JWKS_URI_LENGTH = 2000;

/**
 * A jwks_uri (RFC 7591 §2: "URL string referencing the client's JSON Web Key (JWK) Set document"):
 * https, as the keys' integrity rests on TLS, without userinfo or fragment, already in normalized
 * form (it is a cache key and is shown to staff as is). Returns the problem in words, or null.
 */
export function jwksUriProblem(value: string): string | null {
  if (value.length > MAX_JWKS_URI_LENGTH) return `a jwks_uri is at most ${MAX_JWKS_URI_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'the jwks_uri is not an absolute URL';
  }
  if (url.protocol !== 'https:') return 'the jwks_uri must use https';
  if (url.username || url.password) return 'the jwks_uri must not contain a username or password';
  if (value.includes('#')) return 'the jwks_uri must not contain a fragment';
  if (url.href !== value) return 'the jwks_uri is not in normalized form (lowercase host, no default port)';
  return null;
}
