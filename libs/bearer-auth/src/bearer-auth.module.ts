import { type DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD, DiscoveryModule } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { BearerScopeGuard } from './bearer-scope.guard';
import { BearerStrategy } from './bearer.strategy';
import { DpopStrategy } from './dpop.strategy';
import { BEARER_AUTH_OPTIONS, type BearerAuthOptions, resolveOptions } from './options';
import { RevocationListener } from './revocation-listener';
import { RouteAnnotationCheck } from './route-annotation.check';
import { TokenAuthenticator } from './token-authenticator';
import { TokenValidator } from './token-validator';

/**
 * Access token validation for a resource server: registers the global deny-by-default guard,
 * its two passport strategies (DPoP, then passport-http-bearer), the two-layer introspection
 * cache and the revocation listener.
 */
@Module({})
export class BearerAuthModule {
  static forRoot(options: BearerAuthOptions): DynamicModule {
    return {
      module: BearerAuthModule,
      global: true,
      imports: [PassportModule, DiscoveryModule],
      providers: [
        { provide: BEARER_AUTH_OPTIONS, useValue: resolveOptions(options) },
        TokenValidator,
        TokenAuthenticator,
        DpopStrategy,
        BearerStrategy,
        RevocationListener,
        RouteAnnotationCheck,
        { provide: APP_GUARD, useClass: BearerScopeGuard },
      ],
      exports: [TokenValidator, TokenAuthenticator],
    };
  }
}
