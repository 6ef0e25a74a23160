import { Global, Module } from '@nestjs/common';
import { ClientChangeSubscriber } from '../clients/client-change-subscriber';
import { ClientsRepository } from '../clients/clients.repository';
import { HeldClients } from '../clients/held-clients';
import { ClientAssertionKeys } from './client-assertion-keys';
import { ClientAssertionVerifier } from './client-assertion-verifier';
import { ClientAuthenticator } from './client-authenticator';
import { ClientKeysRepository } from './client-keys.repository';
import { UsedClientAssertions } from './used-client-assertions.repository';

/**
 * Client authentication for every endpoint that needs it. The private_key_jwt pieces need the
 * global ClientMetadataDocumentsModule (RemoteKeySets, for keys at a jwks_uri).
 */
@Global()
@Module({
  providers: [
    ClientsRepository,
    HeldClients,
    ClientChangeSubscriber,
    ClientKeysRepository,
    UsedClientAssertions,
    ClientAssertionKeys,
    ClientAssertionVerifier,
    ClientAuthenticator,
  ],
  exports: [ClientsRepository, HeldClients, ClientAuthenticator],
})
export class ClientAuthModule {}
