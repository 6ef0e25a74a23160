import { Module } from '@nestjs/common';
import { TokenModule } from '../token/token.module';
import { RevocationController } from './revocation.controller';
import { RevocationService } from './revocation.service';

@Module({ imports: [TokenModule], controllers: [RevocationController], providers: [RevocationService] })
export class RevocationModule {}
