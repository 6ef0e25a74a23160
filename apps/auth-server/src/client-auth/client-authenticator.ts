import { Injectable } from '@nestjs/common';
import { InvalidClientError } from '@platform/oauth-errors';
import { ClientDirectory, type DirectoryClient } from '../client-metadata-documents';
import { hashesEqual, hashToken } from '../crypto/tokens';
import { basicChallenge, type ClientCredentials } from './client-credentials';

/**
 * Client authentication at the token and revocation endpoints (RFC 6749 §2.3, §3.2.1):
 * public clients identify themselves with client_id alone; confidential clients add their
 * secret, in the body (client_secret_post) or in HTTP Basic (client_secret_basic): either is
 * accepted whichever was registered, as both carry the same secret over the same TLS. Every failure is the same invalid_client answer (with a Basic challenge
 * when Basic was tried).
 */
@Injectable()
export class ClientAuthenticator {
  constructor(private readonly clients: ClientDirectory) {}

  async authenticate(credentials: ClientCredentials): Promise<DirectoryClient> {
    const { clientId, clientSecret } = credentials;
    const refuse = (detail: string) => {
      const error = new InvalidClientError('Client authentication failed', detail);
      return credentials.viaBasic ? basicChallenge(error) : error;
    };
    // RFC 6749 §5.2: invalid_client is "Client authentication failed (e.g., unknown client, no
    // client authentication included, or unsupported authentication method)", with 401. An
    // unknown or deleted client must get exactly this: MCP clients register again only on it.
    if (!clientId) throw refuse('no client_id');
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
