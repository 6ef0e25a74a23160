import { InvalidClientError, InvalidRequestError } from '@platform/oauth-errors';
import type { FormParams } from '../http/form-params';

export interface ClientCredentials {
  clientId?: string;
  clientSecret?: string;
  /** Whether they came in an `Authorization: Basic` header (failures then answer with a Basic challenge). */
  viaBasic?: boolean;
}

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
