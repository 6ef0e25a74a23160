import { Module } from '@nestjs/common';
import { RegisteredClientsRepository } from './registered-clients.repository';
import { RegistrationController } from './registration.controller';
import { RegistrationService } from './registration.service';

@Module({ controllers: [RegistrationController], providers: [RegistrationService, RegisteredClientsRepository] })
export class RegistrationModule {}
