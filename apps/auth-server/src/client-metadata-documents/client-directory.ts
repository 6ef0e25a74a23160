import { Injectable } from '@nestjs/common';
import type { ClientKeySource } from '../clients/client-key-source';
import type { RegisteredClient } from '../clients/clients.repository';
import { HeldClients } from '../clients/held-clients';
import type { ClientScopePolicy } from '../clients/scope-policy';
import { parseScopeString } from '@platform/scopes';
import { isUrlClientId } from './client-id-url';
import { ClientMetadataDocumentResolver } from './client-metadata-document.resolver';
import { onlyLoopbackRedirects } from './redirect-uri-match';

export type ClientKind = 'dynamic' | 'metadata_document' | 'integration';

/** Any client, as every endpoint needs it: a registered client's fields plus its kind. */
export interface DirectoryClient extends RegisteredClient {
  kind: ClientKind;
  /** Scopes this client may never be granted beyond (staff integrations only). */
  scopeCeiling: string | null;
  /** What the consent page shows as the client's identity: the client_id URL's host, if any. */
  host: string | null;
  /** Every redirect URI is loopback: the consent page warns that the app runs on this computer. */
  loopbackOnly: boolean;
  /**
   * private_key_jwt: where the public keys are, when the lookup had them at hand (a metadata
   * document's); a registered client's are read by the authenticator (client-auth/client-keys.repository.ts).
   */
  keys?: ClientKeySource | null;
}

/**
 * One place that turns a client_id into a client: a URL is a Client ID Metadata Document
 * (fetched, validated, cached; refusals are MetadataDocumentError = invalid_client); anything
 * else is looked up in `clients`. A disabled client is as unknown as one that never existed.
 */
@Injectable()
export class ClientDirectory {
  constructor(
    private readonly clients: HeldClients,
    private readonly documents: ClientMetadataDocumentResolver,
  ) {}

  async findClient(clientId: string): Promise<DirectoryClient | null> {
    if (isUrlClientId(clientId)) {
      const client = await this.documents.resolve(clientId);
      return { ...client, scopeCeiling: null };
    }
    const row = await this.clients.findById(clientId);
    if (!row || row.disabledAt) return null;
    const kind: ClientKind = row.kind === 'integration' ? 'integration' : 'dynamic';
    return {
      id: row.id,
      secretHash: row.secretHash,
      name: row.name,
      applicationType: row.applicationType,
      redirectUris: row.redirectUris,
      tokenEndpointAuthMethod: row.tokenEndpointAuthMethod,
      grantTypes: row.grantTypes,
      responseTypes: row.responseTypes,
      scope: row.scope,
      dpopBoundAccessTokens: row.dpopBoundAccessTokens,
      createdAt: row.createdAt,
      kind,
      scopeCeiling: row.scopeCeiling,
      host: null,
      loopbackOnly: onlyLoopbackRedirects(row.redirectUris),
    };
  }
}

/**
 * clients/scope-policy.ts for every kind: the registered (or document) scope is the default;
 * only staff integrations carry a ceiling.
 */
export function scopePolicyOf(client: Pick<DirectoryClient, 'scope' | 'scopeCeiling'>): ClientScopePolicy {
  return {
    defaultScopes: parseScopeString(client.scope),
    ceiling: client.scopeCeiling === null ? null : parseScopeString(client.scopeCeiling),
  };
}
