import { type DynamicModule, Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { CIMD_CONFIG, type CimdConfig, loadCimdConfig } from '../config/cimd-config';
import { ClientMetadataDocumentResolver } from './client-metadata-document.resolver';
import { ClientDirectory } from './client-directory';
import { HostFetchBudget } from './host-fetch-budget';
import { MetadataDocumentClientsRepository } from './metadata-document-clients.repository';
import { RemoteKeySets } from './remote-key-sets';
import { CIMD_RESOLVER_OVERRIDES, type ResolverOverrides } from './resolver-overrides';

/**
 * Client ID Metadata Documents, the key sets clients publish at a jwks_uri, and the
 * ClientDirectory (every client_id lookup). Global: import ClientMetadataDocumentsModule.register()
 * once in AppModule; it needs the global DatabaseModule (PrismaService) and ClientAuthModule
 * (HeldClients), and AccountsModule's shared counter store (RATE_LIMIT_STORE) for the fetch budget.
 */
@Module({})
export class ClientMetadataDocumentsModule {
  static register(config: CimdConfig = loadCimdConfig(), overrides: ResolverOverrides = {}): DynamicModule {
    return {
      module: ClientMetadataDocumentsModule,
      global: true,
      imports: [AccountsModule],
      providers: [
        { provide: CIMD_CONFIG, useValue: config },
        { provide: CIMD_RESOLVER_OVERRIDES, useValue: overrides },
        MetadataDocumentClientsRepository,
        HostFetchBudget,
        ClientMetadataDocumentResolver,
        RemoteKeySets,
        // Needs HeldClients, which the global ClientAuthModule provides.
        ClientDirectory,
      ],
      exports: [CIMD_CONFIG, ClientMetadataDocumentResolver, ClientDirectory, RemoteKeySets],
    };
  }
}
