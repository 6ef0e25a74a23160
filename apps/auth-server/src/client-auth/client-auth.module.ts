import { Global, Module } from '@nestjs/common';
import { ClientsRepository } from '../clients/clients.repository';
import { ClientAuthenticator } from './client-authenticator';

@Global()
@Module({ providers: [ClientsRepository, ClientAuthenticator], exports: [ClientsRepository, ClientAuthenticator] })
export class ClientAuthModule {}
