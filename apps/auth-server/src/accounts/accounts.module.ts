import { Module } from '@nestjs/common';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';
import { DemoSeeder } from './demo-seeder';

@Module({
  providers: [AccountsRepository, AccountsService, DemoSeeder],
  exports: [AccountsService, DemoSeeder],
})
export class AccountsModule {}
