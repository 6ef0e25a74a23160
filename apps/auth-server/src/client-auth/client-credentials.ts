import { InvalidClientError, InvalidRequestError } from '@platform/oauth-errors';
import { decodeJwt } from 'jose';
import type { FormParams } from '../http/form-params';

export interface ClientCredentials {
  /**
   * The client the request names. For a client assertion: its client_id parameter if sent, else
   * the assertion's (unverified) sub, so that whatever counts requests per client sees one.
   */
  clientId?: string;
  clientSecret?: string;
  /** A private_key_jwt client assertion (RFC 7523 §2.2), not yet verified. */
  clientAssertion?: string;
  /** Whether they came in an `Authorization: Basic` header (failures then answer with a Basic challenge). */
  viaBasic?: boolean;
}

/** RFC 7523 §2.2: the client_assertion_type of a JWT client assertion. */
export const JWT_BEARER_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** A compact JWS of a few claims and an RSA-4096 signature is ~1.5 KB. */
const MAX_CLIENT_ASSERTION_LENGTH = 4096;

const BASIC = /^Basic ([A-Za-z0-9+/=]{1,1024})$/i;
/**
 * How long a client_id parameter may be to be read at all: well above MAX_CLIENT_ID_LENGTH (the
 * longest client_id that can exist, @platform/contracts), so that a longer id still reaches the
 * lookup and is answered as an unknown client (invalid_client), not as a malformed request.
 */
const MAX_CLIENT_ID_PARAM_LENGTH = 2048;
const MAX_CLIENT_SECRET_LENGTH = 256;

/** The Basic challenge a failed Basic authentication answers with (RFC 6749 §5.2, RFC 7617). */
export function basicChallenge(error: InvalidClientError): InvalidClientError {
  error.headers['www-authenticate'] = 'Basic realm="oauth", charset="UTF-8"';
  return error;
}

function formDecode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    throw basicChallenge(new InvalidClientError('Malformed Basic credentials'));
  }
}

/**
 * The client's credentials: client_secret_basic (RFC 6749 §2.3.1: "The authorization server
 * MUST support the HTTP Basic authentication scheme for authenticating clients that were
 * issued a client password"; client_id and secret each form-urlencoded first), or
 * client_secret_post / a public client's client_id in the body. §2.3: "The client MUST NOT use
 * more than one authentication method in each request."
 */
export function readClientCredentials(params: FormParams, authorization: string | undefined): ClientCredentials {
  const assertionType = params.optional('client_assertion_type', 200);
  const assertion = params.optional('client_assertion', MAX_CLIENT_ASSERTION_LENGTH);
  if (assertionType !== undefined || assertion !== undefined) return readClientAssertion(params, authorization, assertionType, assertion);
  const basic = typeof authorization === 'string' && /^Basic\b/i.test(authorization) ? BASIC.exec(authorization) : undefined;
  if (basic === undefined) {
    return {
      clientId: params.optional('client_id', MAX_CLIENT_ID_PARAM_LENGTH),
      clientSecret: params.optional('client_secret', MAX_CLIENT_SECRET_LENGTH),
    };
  }
  if (basic === null) throw basicChallenge(new InvalidClientError('Malformed Basic credentials'));
  const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
  const separator = decoded.indexOf(':');
  if (separator <= 0) throw basicChallenge(new InvalidClientError('Malformed Basic credentials'));
  const clientId = formDecode(decoded.slice(0, separator));
  const clientSecret = formDecode(decoded.slice(separator + 1));
  if (clientId.length > MAX_CLIENT_ID_PARAM_LENGTH || clientSecret.length > MAX_CLIENT_SECRET_LENGTH) {
    throw basicChallenge(new InvalidClientError('Malformed Basic credentials'));
  }
  if (params.optional('client_secret', MAX_CLIENT_SECRET_LENGTH) !== undefined) {
    throw new InvalidRequestError('Use one client authentication method: HTTP Basic or client_secret in the body, not both');
  }
  const bodyClientId = params.optional('client_id', MAX_CLIENT_ID_PARAM_LENGTH);
  if (bodyClientId !== undefined && bodyClientId !== clientId) {
    throw new InvalidRequestError('The client_id in the body is not the one in the Authorization header');
  }
  return { clientId, clientSecret, viaBasic: true };
}

/**
 * RFC 7521 §4.2: client_assertion_type and client_assertion are both REQUIRED when either is
 * sent, and client_id, if present, "MUST identify the same client as is identified by the
 * client assertion" (checked once the assertion is verified: its iss and sub are the client_id).
 * RFC 6749 §2.3: "The client MUST NOT use more than one authentication method in each request."
 */
function readClientAssertion(
  params: FormParams,
  authorization: string | undefined,
  assertionType: string | undefined,
  assertion: string | undefined,
): ClientCredentials {
  if (typeof authorization === 'string' && /^Basic\b/i.test(authorization)) {
    throw new InvalidRequestError('Use one client authentication method: a client_assertion or HTTP Basic, not both');
  }
  if (params.optional('client_secret', MAX_CLIENT_SECRET_LENGTH) !== undefined) {
    throw new InvalidRequestError('Use one client authentication method: a client_assertion or a client_secret, not both');
  }
  if (assertionType === undefined) throw new InvalidRequestError('The client_assertion_type parameter is required with a client_assertion');
  if (assertion === undefined) throw new InvalidRequestError('The client_assertion parameter is required with a client_assertion_type');
  // RFC 6749 §5.2: an unsupported authentication method is invalid_client.
  if (assertionType !== JWT_BEARER_ASSERTION_TYPE) {
    throw new InvalidClientError(`Unsupported client_assertion_type; supported: ${JWT_BEARER_ASSERTION_TYPE}`, `client_assertion_type ${assertionType.slice(0, 100)}`);
  }
  const clientId = params.optional('client_id', MAX_CLIENT_ID_PARAM_LENGTH) ?? unverifiedSubject(assertion);
  return { clientId, clientAssertion: assertion };
}

/** The sub claim of an assertion not yet verified: it names the client to look up, nothing more. */
function unverifiedSubject(assertion: string): string | undefined {
  try {
    const { sub } = decodeJwt(assertion);
    return typeof sub === 'string' && sub.length > 0 && sub.length <= MAX_CLIENT_ID_PARAM_LENGTH ? sub : undefined;
  } catch {
    return undefined;
  }
}
