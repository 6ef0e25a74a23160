import { Module } from '@nestjs/common';
import { MembersModule } from '../members/members.module';
import { AccountController } from './account.controller';
import { AccountService } from './account.service';

@Module({ imports: [MembersModule], controllers: [AccountController], providers: [AccountService] })
export class AccountModule {}
