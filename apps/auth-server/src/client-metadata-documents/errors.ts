import { InvalidClientError, TooManyRequestsError } from '@platform/oauth-errors';

/** Why a client ID metadata document could not be used; logged (internal detail), never a 500. */
export type MetadataDocumentProblem =
  | 'malformed-client-id'
  | 'host-not-allowed'
  | 'special-use-address'
  | 'unreachable'
  | 'timeout'
  | 'redirect'
  | 'bad-status'
  | 'bad-content-type'
  | 'too-large'
  | 'not-json'
  | 'invalid-document'
  | 'disabled';


/**
 * A client_id URL whose document could not be fetched or is not acceptable. At the token,
 * revocation and introspection endpoints this is the usual invalid_client (RFC 6749 §5.2);
 * at the authorization endpoint it is shown on the error page and never redirected
 * (RFC 6749 §4.1.2.1: the redirect URI is unverified). Descriptions are plain ASCII without
 * double quotes, so they fit an error_description and a WWW-Authenticate parameter as is.
 */
export class MetadataDocumentError extends InvalidClientError {
  constructor(
    readonly problem: MetadataDocumentProblem,
    /** What was wrong, without the prefix. */
    readonly reason: string,
    internalDetail?: string,
    /** What was refused: the metadata document, or a key set a client publishes (jwks_uri). */
    refused: 'Client metadata document' | 'Client key set' = 'Client metadata document',
  ) {
    super(`${refused} refused: ${reason}`, internalDetail ?? problem);
  }
}

/**
 * The fetch budget of one host is spent (CIMD_FETCHES_PER_HOST_PER_MINUTE, for every instance together). A 429 rather than
 * invalid_client: the client may well be valid, and MCP clients register again on invalid_client.
 */
export class MetadataDocumentFetchLimitError extends TooManyRequestsError {
  constructor(retryAfterSeconds: number) {
    super(retryAfterSeconds, 'Too many client metadata document fetches for this host; retry later');
  }
}
