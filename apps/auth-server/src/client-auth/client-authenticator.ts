import { Injectable, Optional } from '@nestjs/common';
import { InvalidClientError } from '@platform/oauth-errors';
import { ClientDirectory, type DirectoryClient } from '../client-metadata-documents/client-directory';
import { hashesEqual, hashToken } from '../crypto/tokens';
import { ClientAssertionVerifier } from './client-assertion-verifier';
import { basicChallenge, type ClientCredentials } from './client-credentials';

/**
 * Client authentication at the token, revocation and introspection endpoints (RFC 6749 §2.3,
 * §3.2.1): public clients identify themselves with client_id alone; confidential clients add their
 * secret, in the body (client_secret_post) or in HTTP Basic (client_secret_basic): either is
 * accepted whichever was registered, as both carry the same secret over the same TLS; a
 * private_key_jwt client sends a client assertion (RFC 7523 §2.2) and nothing else: it can
 * neither fall back to client_id alone nor to a secret, and no other client may send an
 * assertion. Failures are invalid_client (with a Basic challenge when Basic was tried).
 */
@Injectable()
export class ClientAuthenticator {
  constructor(
    private readonly clients: ClientDirectory,
    // Provided by ClientAuthModule; an authenticator built without it (unit doubles) refuses every assertion.
    @Optional() private readonly assertions?: ClientAssertionVerifier,
  ) {}

  async authenticate(credentials: ClientCredentials): Promise<DirectoryClient> {
    const { clientId, clientSecret, clientAssertion } = credentials;
    const refuse = (detail: string, description = 'Client authentication failed') => {
      const error = new InvalidClientError(description, detail);
      return credentials.viaBasic ? basicChallenge(error) : error;
    };
    // RFC 6749 §5.2: invalid_client is "Client authentication failed (e.g., unknown client, no
    // client authentication included, or unsupported authentication method)", with 401. An
    // unknown or deleted client must get exactly this: MCP clients register again only on it.
    if (!clientId) {
      if (clientAssertion !== undefined) {
        throw refuse('client_assertion without a readable sub', 'Client authentication failed: the client_assertion names no client (no sub claim) and no client_id was sent');
      }
      throw refuse('no client_id');
    }
    let client: DirectoryClient | null;
    try {
      client = await this.clients.findClient(clientId);
    } catch (error) {
      // A client_id URL whose document was refused is invalid_client too, and §5.2's MUST holds:
      // a client that tried HTTP Basic gets its WWW-Authenticate challenge with the 401.
      if (error instanceof InvalidClientError && credentials.viaBasic) throw basicChallenge(error);
      throw error;
    }
    if (!client) throw refuse('unknown client_id');

    if (client.tokenEndpointAuthMethod === 'private_key_jwt') {
      if (clientAssertion === undefined) {
        // The client registered a key pair: a request without its signature (client_id alone, or a
        // secret) is a downgrade, refused whatever else it carries.
        throw refuse(
          'private_key_jwt client without a client_assertion',
          'Client authentication failed: this client authenticates with private_key_jwt; send client_assertion_type and client_assertion',
        );
      }
      if (!this.assertions) throw refuse('no ClientAssertionVerifier', 'Client authentication failed: private_key_jwt is not available');
      await this.assertions.verify(client, clientAssertion);
      return client;
    }
    if (clientAssertion !== undefined) {
      throw refuse(
        `a ${client.tokenEndpointAuthMethod} client sent a client_assertion`,
        'Client authentication failed: this client is not registered for private_key_jwt and cannot send a client_assertion',
      );
    }
    if (client.tokenEndpointAuthMethod === 'none') {
      if (clientSecret !== undefined) throw refuse('a public client sent a client_secret');
      return client;
    }
    if (!clientSecret || !client.secretHash || !hashesEqual(hashToken(clientSecret), client.secretHash)) {
      throw refuse('wrong or missing client_secret');
    }
    return client;
  }
}
