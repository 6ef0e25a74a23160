import { grantSubject, type SecurityEventInput } from './security-event';

/**
 * The security events the authorization server records, one builder per kind, so that every
 * shape is read in one place (docs/events.md describes them). Each takes what its call site
 * knows; none takes a password, a secret, a code or a token.
 */

/** Where a request came from: its client address (request.ip) and, on the authorization pages, the client it is for. */
export interface RequestOrigin {
  address?: string | null;
  clientId?: string | null;
}

/** A user the event is about, when known. */
export interface UserRef {
  id: string;
  schoolId: string;
}

/** Who revoked a grant that is not the client's own revocation request. */
export type RevokedBy = { type: 'user'; id: string } | { type: 'staff'; id: string | null };

export function signInSucceeded(user: UserRef, origin: RequestOrigin): SecurityEventInput {
  return {
    type: 'auth.sign_in.succeeded',
    schoolId: user.schoolId,
    actor: { type: 'user', id: user.id },
    clientId: origin.clientId,
    address: origin.address,
    data: { method: 'password' },
  };
}

/** An unknown account or a wrong password; the account, when it exists, is the subject (not the actor: nobody proved to be them). */
export function signInFailed(user: UserRef | null, origin: RequestOrigin): SecurityEventInput {
  return {
    type: 'auth.sign_in.failed',
    schoolId: user?.schoolId ?? null,
    actor: { type: 'user', id: null },
    subject: user ? { type: 'user', id: user.id } : null,
    clientId: origin.clientId,
    address: origin.address,
    outcome: 'failure',
    data: { reason: user ? 'wrong_password' : 'unknown_account' },
  };
}

/** A failure that started a sign-in lock (the backoff tripped) for the account or the address. */
export function signInThrottled(user: UserRef | null, lock: { scope: 'account' | 'address'; seconds: number }, origin: RequestOrigin): SecurityEventInput {
  return {
    type: 'auth.sign_in.throttled',
    schoolId: user?.schoolId ?? null,
    actor: { type: 'system', id: null },
    subject: user ? { type: 'user', id: user.id } : null,
    clientId: origin.clientId,
    address: origin.address,
    outcome: 'failure',
    data: { scope: lock.scope, retry_after_seconds: lock.seconds },
  };
}

/** What a user approved or denied: the client, the scope and the resource of the request. */
export interface ConsentAnswer {
  user: UserRef;
  clientId: string;
  scope: string;
  resource: string;
  address?: string | null;
}

/** `approval`: on the consent page (`form`), or by the user's remembered consent without a page (`remembered`). */
export function consentGranted(answer: ConsentAnswer, grantId: string, approval: 'form' | 'remembered'): SecurityEventInput {
  return {
    type: 'auth.consent.granted',
    schoolId: answer.user.schoolId,
    actor: { type: 'user', id: answer.user.id },
    subject: grantSubject(grantId),
    clientId: answer.clientId,
    address: answer.address,
    data: { scope: answer.scope, resource: answer.resource, approval },
  };
}

export function consentDenied(answer: ConsentAnswer): SecurityEventInput {
  return {
    type: 'auth.consent.denied',
    schoolId: answer.user.schoolId,
    actor: { type: 'user', id: answer.user.id },
    clientId: answer.clientId,
    address: answer.address,
    outcome: 'failure',
    data: { scope: answer.scope, resource: answer.resource },
  };
}

/** A grant as the token endpoint and revocation know it. */
export interface GrantRef {
  grantId: string;
  clientId: string;
  userId: string;
  schoolId: string;
}

export function tokensIssued(grant: GrantRef & { scope: string; resource: string }, grantType: string, address: string | null): SecurityEventInput {
  return {
    type: 'auth.token.issued',
    schoolId: grant.schoolId,
    actor: { type: 'client', id: grant.clientId },
    subject: grantSubject(grant.grantId),
    clientId: grant.clientId,
    address,
    data: { grant_type: grantType, scope: grant.scope, resource: grant.resource, user_id: grant.userId },
  };
}

/** RFC 7009 at the revocation endpoint: an access token alone, or a refresh token and its whole grant. */
export function tokenRevokedByClient(grant: GrantRef, tokenType: 'access_token' | 'refresh_token', address: string | null): SecurityEventInput {
  return {
    type: 'auth.token.revoked',
    schoolId: grant.schoolId,
    actor: { type: 'client', id: grant.clientId },
    subject: grantSubject(grant.grantId),
    clientId: grant.clientId,
    address,
    data: { token_type: tokenType, grant_ended: tokenType === 'refresh_token', user_id: grant.userId },
  };
}

/**
 * A grant ended with every token it issued by someone other than its client: the user on the
 * connected-apps page (`disconnected`), or staff with the clients CLI (`integration_disabled`, `integration_deleted`).
 */
export function grantRevoked(grant: GrantRef, by: RevokedBy, reason: string, address: string | null = null): SecurityEventInput {
  return {
    type: 'auth.grant.revoked',
    schoolId: grant.schoolId,
    actor: by,
    subject: grantSubject(grant.grantId),
    clientId: grant.clientId,
    address,
    data: { reason, user_id: grant.userId },
  };
}

/** A rotated-out refresh token presented again (RFC 9700 §4.14.2): its grant was ended. */
export function refreshTokenReuseDetected(grant: GrantRef, address: string | null): SecurityEventInput {
  return {
    type: 'auth.refresh_token.reuse_detected',
    schoolId: grant.schoolId,
    actor: { type: 'client', id: grant.clientId },
    subject: grantSubject(grant.grantId),
    clientId: grant.clientId,
    address,
    outcome: 'failure',
    data: { grant_ended: true, user_id: grant.userId },
  };
}

/** RFC 7591: platform-wide (a registered client belongs to no school until a user authorizes it). */
export function clientRegistered(
  client: { id: string; name: string | null; redirectUris: readonly string[]; tokenEndpointAuthMethod: string },
  address: string | null,
): SecurityEventInput {
  return {
    type: 'auth.client.registered',
    schoolId: null,
    actor: { type: 'client', id: client.id },
    clientId: client.id,
    address,
    data: {
      client_name: client.name?.slice(0, 200) ?? null,
      // Bounded so that the event stays under the ingest's data limit (10 URIs of up to 2,000 characters are registrable).
      redirect_uris: client.redirectUris.slice(0, 10).map((uri) => uri.slice(0, 300)),
      token_endpoint_auth_method: client.tokenEndpointAuthMethod,
    },
  };
}

/** A client_id URL whose document was fetched and stored for the first time (or again after the clean-up purged it unused). */
export function metadataDocumentClientFirstSeen(client: { id: string; name: string | null }): SecurityEventInput {
  return {
    type: 'auth.client.metadata_document_first_seen',
    schoolId: null,
    actor: { type: 'client', id: client.id },
    clientId: client.id,
    data: { host: new URL(client.id).host, client_name: client.name?.slice(0, 200) ?? null },
  };
}

export type IntegrationAction = 'created' | 'secret_rotated' | 'keys_set' | 'disabled' | 'enabled' | 'deleted';

/** Staff changed a registered integration with the clients CLI (platform-wide). `staffId`: the operating-system user who ran it. */
export function integrationChanged(clientId: string, action: IntegrationAction, staffId: string | null, extra: Record<string, unknown> = {}): SecurityEventInput {
  return {
    type: 'auth.integration.changed',
    schoolId: null,
    actor: { type: 'staff', id: staffId },
    clientId,
    data: { action, ...extra },
  };
}

/** The first refusal of a caller under a request limit in its window (the later ones of the window are not recorded). */
export function rateLimitExceeded(
  limit: string,
  retryAfterSeconds: number,
  origin: RequestOrigin & { schoolId?: string | null; requestId?: string },
): SecurityEventInput {
  return {
    requestId: origin.requestId,
    type: 'auth.rate_limit.exceeded',
    schoolId: origin.schoolId ?? null,
    actor: { type: 'system', id: null },
    clientId: origin.clientId,
    address: origin.address,
    outcome: 'failure',
    data: { limit, retry_after_seconds: retryAfterSeconds },
  };
}
