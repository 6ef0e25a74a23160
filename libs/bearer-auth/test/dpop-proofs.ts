import { accessTokenHash } from '@platform/dpop';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type CryptoKey, type JWK, SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';

/** A client's DPoP key: what signs its proofs, and the thumbprint a token is bound to. */
export interface ProofKey {
  privateKey: CryptoKey;
  publicJwk: JWK;
  jkt: string;
}

export async function proofKey(): Promise<ProofKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const publicJwk = await exportJWK(publicKey);
  return { privateKey, publicJwk, jkt: await calculateJwkThumbprint(publicJwk, 'sha256') };
}

export interface ProofClaims {
  htm: string;
  htu: string;
  /** The access token the proof goes with (its ath). */
  token?: string;
  /** Seconds since the epoch; now unless given. */
  iat?: number;
  jti?: string;
  nonce?: string;
}

/** An RFC 9449 §4.2 proof, made the way a client makes one (jose, the key in the jwk header). */
export function dpopProof(key: ProofKey, claims: ProofClaims): Promise<string> {
  return new SignJWT({
    htm: claims.htm,
    htu: claims.htu,
    jti: claims.jti ?? randomUUID(),
    ...(claims.token === undefined ? {} : { ath: accessTokenHash(claims.token) }),
    ...(claims.nonce === undefined ? {} : { nonce: claims.nonce }),
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.publicJwk })
    .setIssuedAt(claims.iat ?? Math.floor(Date.now() / 1000))
    .sign(key.privateKey);
}
