import { Injectable } from '@nestjs/common';
import type { ClientRegistrationResponse } from '@platform/contracts';
import { generateClientId, generateOpaqueToken, hashToken } from '../crypto/tokens';
import { clientRegistered } from '../security-events/recorded-events';
import { securityEventOf } from '../security-events/security-event';
import { RegisteredClientsRepository } from './registered-clients.repository';
import { validateClientMetadata } from './client-metadata';

/** RFC 7591 dynamic client registration, open to native clients with loopback redirect URIs. */
@Injectable()
export class RegistrationService {
  constructor(private readonly clients: RegisteredClientsRepository) {}

  /** `clientAddress`: the caller's (request.ip), for the registration's security event. */
  async register(body: unknown, clientAddress: string | null = null): Promise<ClientRegistrationResponse> {
    const metadata = validateClientMetadata(body);
    const confidential = metadata.tokenEndpointAuthMethod !== 'none';
    const clientId = generateClientId();
    const clientSecret = confidential ? generateOpaqueToken() : undefined;

    // The client and its event are stored together: a client is never registered unrecorded.
    const client = await this.clients.insertRegisteredClient({
      id: clientId,
      secretHash: clientSecret ? hashToken(clientSecret) : null,
      name: metadata.clientName ?? null,
      applicationType: metadata.applicationType,
      redirectUris: metadata.redirectUris,
      tokenEndpointAuthMethod: metadata.tokenEndpointAuthMethod,
      grantTypes: metadata.grantTypes,
      responseTypes: metadata.responseTypes,
      scope: metadata.scope,
      dpopBoundAccessTokens: metadata.dpopBoundAccessTokens,
    }, (registered) => securityEventOf(clientRegistered(registered, clientAddress), registered.createdAt));

    return {
      client_id: client.id,
      client_id_issued_at: Math.floor(client.createdAt.getTime() / 1000),
      ...(clientSecret ? { client_secret: clientSecret, client_secret_expires_at: 0 as const } : {}),
      ...(client.name ? { client_name: client.name } : {}),
      application_type: 'native',
      redirect_uris: client.redirectUris,
      token_endpoint_auth_method: metadata.tokenEndpointAuthMethod,
      grant_types: metadata.grantTypes,
      response_types: metadata.responseTypes,
      // §3.2.1: the registered metadata; a scope only when one was registered.
      ...(client.scope ? { scope: client.scope } : {}),
      dpop_bound_access_tokens: client.dpopBoundAccessTokens,
    };
  }
}
