import { InvalidClientError } from '@platform/oauth-errors';
import { type CryptoKey, decodeProtectedHeader, errors, type JWTPayload, type JWTVerifyGetKey, type JWTVerifyOptions, jwtVerify } from 'jose';
import { ASSERTION_CLOCK_SKEW_SECONDS, ASSERTION_MAX_LIFETIME_SECONDS, CLIENT_ASSERTION_ALGORITHMS } from '../clients/client-assertion-rules';

/** The keys an assertion is checked against. */
export interface AssertionKeySet {
  /** The keys as known now. */
  current(): Promise<JWTVerifyGetKey>;
  /**
   * The keys fetched again, for an assertion whose kid none of them has (a rotation): null when
   * they cannot have changed (keys held inline) or were fetched too recently to fetch again.
   */
  refreshed(): Promise<JWTVerifyGetKey | null>;
}

export interface AssertionExpectations {
  /** The client the assertion must be about: its iss and sub (RFC 7523 §3, OpenID Connect Core §9). */
  clientId: string;
  /** The values its aud may hold: this server's issuer identifier and its token endpoint URL. */
  audiences: readonly string[];
  /** Now, in seconds since the epoch. */
  now: number;
}

export interface VerifiedAssertion {
  jti: string;
  /** Until when the assertion would be accepted (exp plus the clock skew): its jti is remembered until then. */
  acceptedUntil: Date;
}

const ACCEPTED: ReadonlySet<string> = new Set(CLIENT_ASSERTION_ALGORITHMS);
const MAX_JTI_LENGTH = 256;

/** One refusal: always invalid_client (RFC 7521 §4.2.1), saying what was wrong with the assertion. */
export function assertionRefused(problem: string, detail?: string): InvalidClientError {
  return new InvalidClientError(`Client authentication failed: ${problem}`, `client_assertion: ${detail ?? problem}`);
}

/**
 * Verifies a private_key_jwt client assertion (RFC 7523 §3, OpenID Connect Core §9) against the
 * client's public keys. Everything wrong with it is an invalid_client saying what; the jti's
 * single use is the caller's (it needs the shared store).
 */
export async function verifyClientAssertion(assertion: string, keys: AssertionKeySet, expected: AssertionExpectations): Promise<VerifiedAssertion> {
  let alg: unknown;
  try {
    alg = decodeProtectedHeader(assertion).alg;
  } catch {
    throw assertionRefused('the client_assertion is not a JWT (compact JWS)');
  }
  if (alg === 'none') throw assertionRefused('an unsigned client_assertion (alg none) is refused');
  if (typeof alg === 'string' && /^HS\d+$/.test(alg)) {
    throw assertionRefused('a client_assertion signed with a shared secret (HMAC) is refused: sign with the private key of a key pair');
  }
  if (typeof alg !== 'string' || !ACCEPTED.has(alg)) {
    throw assertionRefused(`the client_assertion alg is not accepted; accepted: ${CLIENT_ASSERTION_ALGORITHMS.join(' ')}`, `alg ${String(alg).slice(0, 50)}`);
  }

  const options: JWTVerifyOptions = {
    algorithms: [...CLIENT_ASSERTION_ALGORITHMS],
    // RFC 7523 §3: iss and sub MUST be the client_id (OpenID Connect Core §9: "This MUST contain the client_id").
    issuer: expected.clientId,
    subject: expected.clientId,
    // RFC 7523 §3: "The authorization server MUST reject any JWT that does not contain its own
    // identity as the intended audience"; an array is accepted when one of its values is.
    audience: [...expected.audiences],
    requiredClaims: ['iss', 'sub', 'aud', 'exp', 'jti'],
    clockTolerance: ASSERTION_CLOCK_SKEW_SECONDS,
    currentDate: new Date(expected.now * 1000),
  };
  const payload = await verifyWithKeys(assertion, keys, options);

  const exp = payload.exp as number;
  if (exp > expected.now + ASSERTION_MAX_LIFETIME_SECONDS + ASSERTION_CLOCK_SKEW_SECONDS) {
    throw assertionRefused(`the client_assertion exp is more than ${ASSERTION_MAX_LIFETIME_SECONDS} seconds away: make assertions short-lived`);
  }
  if (payload.iat !== undefined && payload.iat > expected.now + ASSERTION_CLOCK_SKEW_SECONDS) {
    throw assertionRefused('the client_assertion iat is in the future');
  }
  // RFC 7523 §3: the server "MAY ensure that JWTs are not replayed by maintaining the set of used
  // jti values"; OpenID Connect Core §9 makes jti REQUIRED for this reason.
  if (typeof payload.jti !== 'string' || payload.jti.length === 0 || payload.jti.length > MAX_JTI_LENGTH) {
    throw assertionRefused(`the client_assertion jti must be a string of 1 to ${MAX_JTI_LENGTH} characters`);
  }
  return { jti: payload.jti, acceptedUntil: new Date((exp + ASSERTION_CLOCK_SKEW_SECONDS) * 1000) };
}

/**
 * jwtVerify over the client's keys, once more with keys fetched again when none has the
 * assertion's kid. Getting the keys may fail on its own terms (a refused jwks_uri is
 * invalid_client, a database outage is not the client's fault); everything jwtVerify throws is
 * the assertion's problem.
 */
async function verifyWithKeys(assertion: string, keys: AssertionKeySet, options: JWTVerifyOptions): Promise<JWTPayload> {
  const current = await keys.current();
  try {
    return await verifyOver(assertion, current, options);
  } catch (error) {
    if (!(error instanceof errors.JWKSNoMatchingKey)) throw describeFailure(error);
    const again = await keys.refreshed();
    if (!again) throw describeFailure(error);
    try {
      return await verifyOver(assertion, again, options);
    } catch (retry) {
      throw describeFailure(retry);
    }
  }
}

/**
 * One key set. Without a kid, a set may hold several keys of the assertion's type: jose then
 * hands back the candidates and each is tried.
 */
async function verifyOver(assertion: string, keys: JWTVerifyGetKey, options: JWTVerifyOptions): Promise<JWTPayload> {
  try {
    return (await jwtVerify(assertion, keys, options)).payload;
  } catch (error) {
    if (!(error instanceof errors.JWKSMultipleMatchingKeys)) throw error;
    for await (const key of error as unknown as AsyncIterable<CryptoKey>) {
      try {
        return (await jwtVerify(assertion, key, options)).payload;
      } catch (attempt) {
        if (!(attempt instanceof errors.JWSSignatureVerificationFailed)) throw attempt;
      }
    }
    throw new errors.JWSSignatureVerificationFailed();
  }
}

function describeFailure(error: unknown): InvalidClientError {
  if (error instanceof errors.JWTExpired) return assertionRefused('the client_assertion has expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case 'iss':
      case 'sub':
        return assertionRefused(`the client_assertion ${error.claim} must be the client_id`, `${error.claim}: ${error.message}`);
      case 'aud':
        return assertionRefused('the client_assertion aud must be the issuer identifier or the token endpoint URL of this server');
      case 'nbf':
        return assertionRefused('the client_assertion is not valid yet (nbf)');
      default:
        return assertionRefused(`the client_assertion ${error.claim} claim is missing or invalid`, error.message);
    }
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return assertionRefused("the client_assertion signature does not verify with the client's keys");
  if (error instanceof errors.JWKSNoMatchingKey) return assertionRefused("none of the client's keys matches the client_assertion (kid and alg)");
  if (error instanceof errors.JOSEAlgNotAllowed) return assertionRefused('the client_assertion alg is not accepted');
  if (error instanceof errors.JOSEError) return assertionRefused('the client_assertion is not a valid JWT', `${error.code}: ${error.message}`);
  // A key the platform's crypto cannot import (a point off its curve, say): still the client's.
  return assertionRefused("the client's keys cannot verify the client_assertion", error instanceof Error ? error.message : String(error));
}
