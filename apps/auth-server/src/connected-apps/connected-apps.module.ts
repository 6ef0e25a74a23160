import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { BrandingModule } from '../branding/branding.module';
import { CsrfTokens } from '../pages/csrf';
import { SecurityEventsModule } from '../security-events/security-events.module';
import { SessionsModule } from '../sessions/sessions.module';
import { TokenModule } from '../token/token.module';
import { ConnectedAppsController } from './connected-apps.controller';
import { ConnectedAppsRepository } from './connected-apps.repository';
import { ConnectedAppsService } from './connected-apps.service';

/** GET /oauth/connected-apps, POST .../login, .../disconnect, .../sign-out. Add to AppModule's imports. */
@Module({
  imports: [AccountsModule, SessionsModule, BrandingModule, TokenModule, SecurityEventsModule],
  controllers: [ConnectedAppsController],
  providers: [ConnectedAppsRepository, ConnectedAppsService, CsrfTokens],
})
export class ConnectedAppsModule {}
