import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { BrandingModule } from '../branding/branding.module';
import { CsrfTokens } from '../pages/csrf';
import { SecurityEventsModule } from '../security-events/security-events.module';
import { SessionsModule } from '../sessions/sessions.module';
import { AuthorizeController } from './authorize.controller';
import { AuthorizeRepository } from './authorize.repository';
import { AuthorizeService } from './authorize.service';

/**
 * GET|POST /oauth/authorize, POST /oauth/authorize/login, POST /oauth/authorize/consent.
 * Needs registerAuthorizePlugins (cookies) on the Fastify instance before app.init().
 */
@Module({
  imports: [AccountsModule, SessionsModule, BrandingModule, SecurityEventsModule],
  controllers: [AuthorizeController],
  providers: [AuthorizeRepository, AuthorizeService, CsrfTokens],
})
export class AuthorizeModule {}
