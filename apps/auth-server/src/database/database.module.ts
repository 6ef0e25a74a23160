import { Global, Module } from '@nestjs/common';
import { PG_POOL } from './pg-pool';
import { PrismaService } from './prisma.service';

@Global()
@Module({
  providers: [PrismaService, { provide: PG_POOL, useFactory: (prisma: PrismaService) => prisma.pool, inject: [PrismaService] }],
  exports: [PrismaService, PG_POOL],
})
export class DatabaseModule {}
