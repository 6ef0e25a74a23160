import { Module } from '@nestjs/common';
import { AUTH_CONFIG, type AuthConfig } from '../config/auth-config';
import { BrandingService } from './branding.service';

/** The school's name and theme for the sign-in pages (see BrandingService). Needs AUTH_CONFIG. */
@Module({
  providers: [
    {
      provide: BrandingService,
      useFactory: (config: AuthConfig) => new BrandingService(config),
      inject: [AUTH_CONFIG],
    },
  ],
  exports: [BrandingService],
})
export class BrandingModule {}
