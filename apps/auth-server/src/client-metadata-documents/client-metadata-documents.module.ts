import { type DynamicModule, Module } from '@nestjs/common';
import { CIMD_CONFIG, type CimdConfig, loadCimdConfig } from './cimd-config';
import { CIMD_RESOLVER_OVERRIDES, ClientMetadataDocumentResolver, type ResolverOverrides } from './client-metadata-document.resolver';
import { ClientDirectory } from './client-directory';
import { MetadataDocumentClientsRepository } from './metadata-document-clients.repository';

/**
 * Client ID Metadata Documents and the ClientDirectory (every client_id lookup). Global:
 * import ClientMetadataDocumentsModule.register() once in AppModule; it needs the global
 * DatabaseModule (PrismaService) and ClientAuthModule (HeldClients).
 */
@Module({})
export class ClientMetadataDocumentsModule {
  static register(config: CimdConfig = loadCimdConfig(), overrides: ResolverOverrides = {}): DynamicModule {
    return {
      module: ClientMetadataDocumentsModule,
      global: true,
      providers: [
        { provide: CIMD_CONFIG, useValue: config },
        { provide: CIMD_RESOLVER_OVERRIDES, useValue: overrides },
        MetadataDocumentClientsRepository,
        ClientMetadataDocumentResolver,
        // Needs HeldClients, which the global ClientAuthModule provides.
        ClientDirectory,
      ],
      exports: [CIMD_CONFIG, ClientMetadataDocumentResolver, ClientDirectory],
    };
  }
}
