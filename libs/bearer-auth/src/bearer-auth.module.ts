import { type DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD, DiscoveryModule } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { BearerScopeGuard } from './bearer-scope.guard';
import { BearerStrategy } from './bearer.strategy';
import { BEARER_AUTH_OPTIONS, type BearerAuthOptions, resolveOptions } from './options';
import { RevocationListener } from './revocation-listener';
import { RouteAnnotationCheck } from './route-annotation.check';
import { TokenValidator } from './token-validator';

/**
 * Bearer token validation for a resource server: registers the global deny-by-default guard,
 * the passport-http-bearer strategy, the two-layer introspection cache and the revocation
 * listener.
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
        BearerStrategy,
        RevocationListener,
        RouteAnnotationCheck,
        { provide: APP_GUARD, useClass: BearerScopeGuard },
      ],
      exports: [TokenValidator],
    };
  }
}
