import { Module } from '@nestjs/common';
import { SessionService } from './session.service';
import { SessionsRepository } from './sessions.repository';

@Module({
  providers: [SessionsRepository, SessionService],
  exports: [SessionService],
})
export class SessionsModule {}
