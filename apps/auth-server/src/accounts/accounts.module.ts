import { Module } from '@nestjs/common';
import { createRateLimitStore } from '@platform/rate-limits';
import { AUTH_CONFIG, type AuthConfig } from '../config/auth-config';
import { RATE_LIMIT_STORE } from '../rate-limits/rate-limit-store';
import { SecurityEventsModule } from '../security-events/security-events.module';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';
import { DemoSeeder } from './demo-seeder';
import { LoginThrottle } from './login-throttle';

@Module({
  imports: [SecurityEventsModule],
  providers: [
    AccountsRepository,
    AccountsService,
    DemoSeeder,
    LoginThrottle,
    {
      // Redis shared by every instance of this issuer when REDIS_URL is set (other issuers on
      // the same Redis, e.g. parallel test servers, keep their own counts); closed by LoginThrottle.
      provide: RATE_LIMIT_STORE,
      useFactory: (config: AuthConfig) =>
        createRateLimitStore({ redisUrl: config.redisUrl, prefix: `auth-server:limits:${config.issuer}:` }),
      inject: [AUTH_CONFIG],
    },
  ],
  exports: [AccountsService, DemoSeeder, RATE_LIMIT_STORE],
})
export class AccountsModule {}
