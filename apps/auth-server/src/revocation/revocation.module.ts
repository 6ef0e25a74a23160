import { Module } from '@nestjs/common';
import { SecurityEventsModule } from '../security-events/security-events.module';
import { TokenModule } from '../token/token.module';
import { RevocationController } from './revocation.controller';
import { RevocationService } from './revocation.service';

@Module({ imports: [TokenModule, SecurityEventsModule], controllers: [RevocationController], providers: [RevocationService] })
export class RevocationModule {}
