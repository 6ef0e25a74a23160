import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, decodeProtectedHeader, importJWK, jwtVerify, type JWK, type JWTPayload } from 'jose';
import { LRUCache } from 'lru-cache';
import { InvalidDpopProofError, UseDpopNonceError } from '@platform/oauth-errors';
import { DPOP_SIGNING_ALGORITHMS } from './algorithms';
import type { DpopNonces } from './dpop-nonces';
import { normalizedHtu } from './htu';

export interface DpopProofRequest {
  /** The request's DPoP header(s): exactly one is required (RFC 9449 §4.3 check 1). */
  proof: string | string[] | undefined;
  /** The request's method: htm must equal it. */
  method: string;
  /** The request's URL as the client called it: htu must equal it, query and fragment ignored. */
  url: string;
  /** At a resource server: ath must be the base64url SHA-256 of this token (§4.3 check 10, §7). */
  accessToken?: string;
  /** The verifier's nonce policy for this call (§8, §9). */
  nonceRequired?: boolean;
}

export interface VerifiedDpopProof {
  /** The RFC 7638 SHA-256 thumbprint of the proof's key, base64url: what a token is bound to. */
  jkt: string;
  jti: string;
  iat: number;
}

/** jti single use: true the first time a key is seen until expiresAt (shared by every instance of the service). */
export interface DpopReplayGuard {
  firstUse(key: string, expiresAt: Date): Promise<boolean>;
}

export interface DpopProofVerifierOptions {
  algorithms?: readonly string[];
  /** How old a proof may be: its iat no earlier than now minus this. */
  maxAgeSeconds: number;
  /** How far ahead of this server's clock a client's iat may be. 5 s unless told. */
  clockSkewSeconds?: number;
  replay: DpopReplayGuard;
  nonces?: DpopNonces;
  clock?: () => number;
}

/** A proof is a few hundred bytes; a bound keeps a hostile header from costing a parse of megabytes. */
const MAX_PROOF_LENGTH = 8192;
const MAX_JTI_LENGTH = 256;
/** §4.3 check 2: "a well-formed JWT": three base64url segments (a JWS in compact serialisation). */
const COMPACT_JWS = /^[\w-]+\.[\w-]+\.[\w-]+$/;
/** §4.3 check 6: the jwk "does not contain a private key": the private members of RFC 7518 §6, and k. */
const PRIVATE_KEY_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;
/** Clients' public keys, imported once: a client signs every proof of a session with one key. */
const IMPORTED_KEYS = 1_000;

type VerificationKey = Awaited<ReturnType<typeof importJWK>>;

/** Checks a DPoP proof (RFC 9449 §4.3); throws InvalidDpopProofError / UseDpopNonceError. */
export class DpopProofVerifier {
  private readonly algorithms: string[];
  private readonly maxAgeSeconds: number;
  private readonly clockSkewSeconds: number;
  private readonly replay: DpopReplayGuard;
  private readonly nonces: DpopNonces | undefined;
  private readonly clock: () => number;
  /**
   * Imported public keys by RFC 7638 thumbprint and alg. Importing a JWK costs several times the
   * signature check itself; the thumbprint covers every member the import reads, and private
   * keys never get here (embeddedPublicJwk refuses them first).
   */
  private readonly keys = new LRUCache<string, VerificationKey>({ max: IMPORTED_KEYS });

  constructor(options: DpopProofVerifierOptions) {
    const algorithms = options.algorithms ?? DPOP_SIGNING_ALGORITHMS;
    const symmetric = algorithms.filter((alg) => !DPOP_SIGNING_ALGORITHMS.includes(alg));
    if (symmetric.length > 0) throw new Error(`DpopProofVerifier: not an asymmetric algorithm: ${symmetric.join(' ')}`);
    if (!(options.maxAgeSeconds > 0)) throw new Error('DpopProofVerifier: maxAgeSeconds must be positive');
    this.algorithms = [...algorithms];
    this.maxAgeSeconds = options.maxAgeSeconds;
    this.clockSkewSeconds = options.clockSkewSeconds ?? 5;
    this.replay = options.replay;
    this.nonces = options.nonces;
    this.clock = options.clock ?? Date.now;
  }

  async verify(request: DpopProofRequest): Promise<VerifiedDpopProof> {
    const proof = singleProof(request.proof);
    const jwk = embeddedPublicJwk(proof);
    const jkt = await thumbprintOf(jwk);
    const { payload } = await this.verifySignature(proof, jwk, jkt);
    const claims = requiredClaims(payload);

    // §4.3 check 8: "The htm claim matches the HTTP method of the current request."
    if (claims.htm !== request.method) throw refuse('The DPoP proof is for another HTTP method', `htm ${claims.htm}`);
    // §4.3 check 9: "The htu claim matches the HTTP URI value for the HTTP request in which the JWT
    // was received, ignoring any query and fragment parts."
    const htu = normalizedHtu(claims.htu);
    if (htu === undefined || htu !== normalizedHtu(request.url)) throw refuse('The DPoP proof is for another URL', `htu ${claims.htu}`);

    // §4.3 check 11: "the creation time of the JWT, as determined by ... the iat claim, is within an
    // acceptable window". Both sides: a proof made in advance is as replayable as an old one.
    const now = this.clock() / 1000;
    if (claims.iat < now - this.maxAgeSeconds) throw refuse('The DPoP proof is too old');
    if (claims.iat > now + this.clockSkewSeconds) throw refuse('The DPoP proof is issued in the future');

    if (request.accessToken !== undefined) {
      // §4.3 check 10 / §7: the ath claim "MUST" be the base64url SHA-256 of the access token.
      if (payload.ath !== accessTokenHash(request.accessToken)) throw refuse('The DPoP proof is for another access token');
    }

    if (request.nonceRequired) {
      if (this.nonces === undefined) throw new Error('DpopProofVerifier: a nonce is required but no DpopNonces were given');
      // §8: "the authorization server MUST reject" a proof without the nonce it provided, answering
      // use_dpop_nonce with a fresh one in the DPoP-Nonce header.
      if (typeof payload.nonce !== 'string' || !this.nonces.accepts(payload.nonce)) {
        throw new UseDpopNonceError(this.nonces.current(), 'A DPoP nonce is required: retry with the one in the DPoP-Nonce header');
      }
    }

    // §4.3 check 12 / §11.1: the jti is single use within the window its iat is accepted in. Last, so
    // that a proof refused for any other reason does not use up its jti.
    const expiresAt = new Date((claims.iat + this.maxAgeSeconds + 1) * 1000);
    if (!(await this.replay.firstUse(replayKey(jkt, claims.jti), expiresAt))) {
      throw refuse('The DPoP proof was used before', `jti ${claims.jti}`);
    }
    return { jkt, jti: claims.jti, iat: claims.iat };
  }

  private async verifySignature(proof: string, jwk: JWK, jkt: string) {
    try {
      // §4.3 checks 4, 5, 7: typ is dpop+jwt; alg is an allowed asymmetric one; the signature
      // verifies with the public key in the jwk header.
      return await jwtVerify(proof, (header) => this.keyOf(jwk, jkt, header.alg), {
        typ: 'dpop+jwt',
        algorithms: this.algorithms,
        currentDate: new Date(this.clock()),
      });
    } catch (error) {
      throw refuse('The DPoP proof is invalid', error instanceof Error ? error.message : String(error));
    }
  }

  /** The jwk header's key, imported for alg (jwtVerify has checked alg against the allow-list before it asks). */
  private async keyOf(jwk: JWK, jkt: string, alg: string): Promise<VerificationKey> {
    const id = `${jkt}.${alg}`;
    let key = this.keys.get(id);
    if (key === undefined) {
      key = await importJWK(jwk, alg);
      this.keys.set(id, key);
    }
    return key;
  }
}

/** base64url(SHA-256(ASCII(access token))): the ath claim (RFC 9449 §4.2). */
export function accessTokenHash(accessToken: string): string {
  return createHash('sha256').update(accessToken, 'ascii').digest('base64url');
}

function singleProof(proof: string | string[] | undefined): string {
  // §4.3 check 1: "There is not more than one DPoP HTTP request header field." Node joins repeated
  // headers with ", ", which no compact JWS contains.
  const values = Array.isArray(proof) ? proof : proof === undefined ? [] : [proof];
  const [value] = values;
  if (values.length !== 1 || value === undefined) throw refuse('Exactly one DPoP header is required', `${values.length} DPoP headers`);
  if (value.length > MAX_PROOF_LENGTH) throw refuse('The DPoP proof is too large');
  // §4.3 check 2: "The DPoP HTTP request header field value is a single and well-formed JWT."
  if (!COMPACT_JWS.test(value)) throw refuse('The DPoP header is not a single well-formed JWT');
  return value;
}

function embeddedPublicJwk(proof: string): JWK {
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(proof);
  } catch (error) {
    throw refuse('The DPoP header is not a single well-formed JWT', error instanceof Error ? error.message : undefined);
  }
  const jwk = header.jwk;
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) throw refuse('The DPoP proof has no jwk header');
  // §4.3 check 6: "The jwk JOSE Header Parameter does not contain a private key."
  const privateMember = PRIVATE_KEY_MEMBERS.find((member) => member in jwk);
  if (privateMember !== undefined) throw refuse('The DPoP proof jwk must be a public key', `jwk has ${privateMember}`);
  return jwk;
}

interface ProofClaims {
  jti: string;
  htm: string;
  htu: string;
  iat: number;
}

/** §4.3 check 3: "All required claims per Section 4.2 are contained in the JWT." */
function requiredClaims(payload: JWTPayload): ProofClaims {
  const { jti, htm, htu, iat } = payload;
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI_LENGTH) throw refuse('The DPoP proof needs a jti');
  if (typeof htm !== 'string' || htm.length === 0) throw refuse('The DPoP proof needs an htm');
  if (typeof htu !== 'string' || htu.length === 0) throw refuse('The DPoP proof needs an htu');
  if (typeof iat !== 'number' || !Number.isFinite(iat)) throw refuse('The DPoP proof needs an iat');
  return { jti, htm, htu, iat };
}

/** The RFC 7638 SHA-256 thumbprint of the proof's key; a jwk without the members it needs is no key. */
async function thumbprintOf(jwk: JWK): Promise<string> {
  try {
    return await calculateJwkThumbprint(jwk, 'sha256');
  } catch (error) {
    throw refuse('The DPoP proof jwk is not a usable public key', error instanceof Error ? error.message : undefined);
  }
}

/** The proof's jti scoped to its key, hashed: a bounded, opaque key for any store. */
function replayKey(jkt: string, jti: string): string {
  return createHash('sha256').update(`${jkt}.${jti}`).digest('base64url');
}

function refuse(description: string, internalDetail?: string): InvalidDpopProofError {
  return new InvalidDpopProofError(description, internalDetail);
}
