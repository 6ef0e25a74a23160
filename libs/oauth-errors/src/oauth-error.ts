import { toErrorDescription } from './error-description';

/**
 * One class per OAuth error code (RFC 6749 §4.1.2.1, §5.2; RFC 6750 §3.1; RFC 7591 §3.2.2;
 * RFC 7009 §2.2.1; RFC 8707 §2). Each carries the code, a description safe to show the
 * client, the HTTP status the RFC prescribes, and an internal detail that is logged and
 * never returned.
 */
export abstract class OAuthError extends Error {
  abstract readonly error: string;
  abstract readonly status: number;
  /** Extra response headers, e.g. WWW-Authenticate or Retry-After. */
  readonly headers: Record<string, string> = {};
  /**
   * What the client is told: always within the error_description grammar (RFC 6749 §5.2,
   * RFC 6750 §3, RFC 7591 §3.2.2), whatever the caller passed (see error-description.ts).
   */
  readonly description: string;

  constructor(
    description: string,
    /** Logged, never sent to the client. */
    readonly internalDetail?: string,
  ) {
    const safe = toErrorDescription(description);
    super(safe);
    this.description = safe;
    this.name = new.target.name;
  }

  withHeader(name: string, value: string): this {
    this.headers[name] = value;
    return this;
  }

  toBody(): OAuthErrorBody {
    return { error: this.error, error_description: this.description };
  }
}

export interface OAuthErrorBody {
  error: string;
  error_description: string;
}

export class InvalidRequestError extends OAuthError {
  readonly error = 'invalid_request';
  readonly status = 400;
}

/**
 * RFC 6749 §5.2: "The authorization server MAY return an HTTP 401 (Unauthorized) status code
 * to indicate which HTTP authentication schemes are supported." We always answer 401.
 */
export class InvalidClientError extends OAuthError {
  readonly error = 'invalid_client';
  readonly status = 401;
  constructor(description = 'Client authentication failed', internalDetail?: string) {
    super(description, internalDetail);
  }
}

export class InvalidGrantError extends OAuthError {
  readonly error = 'invalid_grant';
  readonly status = 400;
}

export class UnauthorizedClientError extends OAuthError {
  readonly error = 'unauthorized_client';
  readonly status = 400;
}

export class UnsupportedGrantTypeError extends OAuthError {
  readonly error = 'unsupported_grant_type';
  readonly status = 400;
}

export class UnsupportedResponseTypeError extends OAuthError {
  readonly error = 'unsupported_response_type';
  readonly status = 400;
}

export class InvalidScopeError extends OAuthError {
  readonly error = 'invalid_scope';
  readonly status = 400;
}

/** RFC 8707 §2: the requested resource is invalid, unknown or malformed. */
export class InvalidTargetError extends OAuthError {
  readonly error = 'invalid_target';
  readonly status = 400;
}

export class AccessDeniedError extends OAuthError {
  readonly error = 'access_denied';
  readonly status = 403;
  constructor(description = 'The resource owner denied the request', internalDetail?: string) {
    super(description, internalDetail);
  }
}

/** RFC 7591 §3.2.2 */
export class InvalidRedirectUriError extends OAuthError {
  readonly error = 'invalid_redirect_uri';
  readonly status = 400;
}

/** RFC 7591 §3.2.2 */
export class InvalidClientMetadataError extends OAuthError {
  readonly error = 'invalid_client_metadata';
  readonly status = 400;
}

/** RFC 6750 §3.1 */
export class InvalidTokenError extends OAuthError {
  readonly error = 'invalid_token';
  readonly status = 401;
}

/** RFC 6750 §3.1 */
export class InsufficientScopeError extends OAuthError {
  readonly error = 'insufficient_scope';
  readonly status = 403;
  constructor(
    readonly requiredScopes: readonly string[],
    description = `The access token lacks a required scope: ${requiredScopes.join(' ')}`,
  ) {
    super(description);
  }
}

/**
 * RFC 9449 §12.2: the DPoP proof is invalid. 400 at the token endpoint (§5); a resource server
 * answers 401 with a `WWW-Authenticate: DPoP` challenge (§7.1): withStatus(401).
 */
export class InvalidDpopProofError extends OAuthError {
  readonly error = 'invalid_dpop_proof';
  status: 400 | 401 = 400;

  withStatus(status: 400 | 401): this {
    this.status = status;
    return this;
  }
}

/**
 * RFC 9449 §8/§9: the server requires a nonce in the proof. The fresh nonce travels in the
 * `DPoP-Nonce` header; 400 at the token endpoint (§8), 401 at a resource server (§9): withStatus(401).
 */
export class UseDpopNonceError extends OAuthError {
  readonly error = 'use_dpop_nonce';
  status: 400 | 401 = 400;

  constructor(
    readonly nonce: string,
    description = 'Authorization server requires nonce in DPoP proof',
    internalDetail?: string,
  ) {
    super(description, internalDetail);
    this.headers['dpop-nonce'] = nonce;
  }

  withStatus(status: 400 | 401): this {
    this.status = status;
    return this;
  }
}

/** Any other route or method: not an OAuth code, but the same body shape. */
export class NotFoundError extends OAuthError {
  readonly error = 'not_found';
  readonly status = 404;
}

export class MethodNotAllowedError extends OAuthError {
  readonly error = 'invalid_request';
  readonly status = 405;
}

export class PayloadTooLargeError extends OAuthError {
  readonly error = 'invalid_request';
  readonly status = 413;
}

export class UnsupportedMediaTypeError extends OAuthError {
  readonly error = 'invalid_request';
  readonly status = 415;
}

export class TooManyRequestsError extends OAuthError {
  readonly error = 'too_many_requests';
  readonly status = 429;
  constructor(
    readonly retryAfterSeconds: number,
    description = 'Too many requests; retry later',
  ) {
    super(description);
    this.headers['retry-after'] = String(retryAfterSeconds);
  }
}

export class ServerError extends OAuthError {
  readonly error = 'server_error';
  readonly status = 500;
  constructor(internalDetail?: string) {
    super('The server encountered an unexpected condition', internalDetail);
  }
}

export class TemporarilyUnavailableError extends OAuthError {
  readonly error = 'temporarily_unavailable';
  readonly status = 503;
  constructor(description = 'The service is temporarily unavailable; retry later', internalDetail?: string) {
    super(description, internalDetail);
  }
}
