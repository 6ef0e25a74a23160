import { type DynamicModule, Module } from '@nestjs/common';
import { CIMD_CONFIG, type CimdConfig, loadCimdConfig } from './cimd-config';
import { CIMD_RESOLVER_OVERRIDES, ClientMetadataDocumentResolver, type ResolverOverrides } from './client-metadata-document.resolver';
import { MetadataDocumentClientsRepository } from './metadata-document-clients.repository';

/**
 * Client ID Metadata Documents. Import ClientMetadataDocumentsModule.register() where a
 * client_id is looked up (client authentication, the authorization endpoint); it needs the
 * global DatabaseModule's PrismaService.
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
      ],
      exports: [CIMD_CONFIG, ClientMetadataDocumentResolver],
    };
  }
}
