import { Global, Module } from '@nestjs/common';
import { ClientChangeSubscriber } from '../clients/client-change-subscriber';
import { ClientsRepository } from '../clients/clients.repository';
import { HeldClients } from '../clients/held-clients';
import { ClientAuthenticator } from './client-authenticator';

@Global()
@Module({
  providers: [ClientsRepository, HeldClients, ClientChangeSubscriber, ClientAuthenticator],
  exports: [ClientsRepository, HeldClients, ClientAuthenticator],
})
export class ClientAuthModule {}
