import { newEventId } from '@platform/contracts';
import { NOW } from './security-event-outbox';
import { eventRequestFields } from './security-event';

/** A token request as its security events name it: the client address (request.ip) and the request id. Never a credential. */
export interface TokenRequestOrigin {
  address: string | null;
  requestId: string | null;
}

/** A request that issues tokens, as its auth.token.issued event names it. */
export interface IssuingRequest extends TokenRequestOrigin {
  grantType: 'authorization_code' | 'refresh_token';
}

/**
 * auth.token.issued (the shape of recorded-events.ts tokensIssued, docs/events.md) as an INSERT
 * into the outbox, for the statement that stores the tokens (token-store.ts) to write in a CTE:
 * the event commits with the tokens or not at all, and costs the hot path no statement of its own.
 *
 * `FROM <the issuing CTE>` follows it; that CTE has the request's columns event_id,
 * event_grant_type, event_address, event_request_id (tokenIssuedEventArrays) and the now,
 * grant_id, client_id, user_id, school_id, resource, and `scope`: the column of the access
 * token's scope. Nothing of a token or a code goes in.
 */
export function insertTokenIssuedEvent(scope: string): string {
  return `INSERT INTO security_event_outbox (id, payload, created_at, next_attempt_at)
  SELECT event_id,
         json_build_object(
           'id', event_id,
           'type', 'auth.token.issued',
           'occurred_at', to_char(now, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'school_id', school_id,
           'actor', json_build_object('type', 'client', 'id', client_id),
           'subject', json_build_object('type', 'grant', 'id', grant_id),
           'client_id', client_id,
           'address', event_address,
           'request_id', event_request_id,
           'outcome', 'success',
           'data', json_build_object('grant_type', event_grant_type, 'scope', ${scope}, 'resource', resource, 'user_id', user_id)
         )::text,
         ${NOW}, ${NOW}`;
}

/** The request's columns of a batch, one element per request: event id (a new one each), grant type, address, request id. */
export function tokenIssuedEventArrays(requests: readonly IssuingRequest[]): [string[], string[], Array<string | null>, Array<string | null>] {
  const fields = requests.map((request) => eventRequestFields(request.address, request.requestId));
  return [
    requests.map(() => newEventId()),
    requests.map((request) => request.grantType),
    fields.map((field) => field.address),
    fields.map((field) => field.request_id),
  ];
}
