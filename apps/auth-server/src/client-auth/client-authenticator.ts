import { Injectable } from '@nestjs/common';
import { InvalidClientError, InvalidRequestError } from '@platform/oauth-errors';
import { type RegisteredClient, ClientsRepository } from '../clients/clients.repository';
import { hashesEqual, hashToken } from '../crypto/tokens';

export interface ClientCredentials {
  clientId?: string;
  clientSecret?: string;
}

/**
 * Client authentication at the token and revocation endpoints (RFC 6749 §2.3, §3.2.1):
 * public clients identify themselves with client_id alone; confidential clients must add
 * client_secret (client_secret_post). Every failure is the same invalid_client answer.
 */
@Injectable()
export class ClientAuthenticator {
  constructor(private readonly clients: ClientsRepository) {}

  async authenticate(credentials: ClientCredentials): Promise<RegisteredClient> {
    const { clientId, clientSecret } = credentials;
    if (!clientId) throw new InvalidRequestError('client_id is required');
    const client = await this.clients.findClientById(clientId);
    if (!client) throw new InvalidClientError('Client authentication failed', 'unknown client_id');
    if (client.tokenEndpointAuthMethod === 'none') {
      if (clientSecret !== undefined) {
        throw new InvalidClientError('Client authentication failed', 'a public client sent a client_secret');
      }
      return client;
    }
    if (!clientSecret || !client.secretHash || !hashesEqual(hashToken(clientSecret), client.secretHash)) {
      throw new InvalidClientError('Client authentication failed', 'wrong or missing client_secret');
    }
    return client;
  }
}
