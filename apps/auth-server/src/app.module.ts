import { type DynamicModule, Global, Module } from '@nestjs/common';
import { EVENT_BUS, type EventBus } from '@platform/event-bus';
import { AccountsModule } from './accounts/accounts.module';
import { AuthorizeModule } from './authorize/authorize.module';
import { ClientAuthModule } from './client-auth/client-auth.module';
import { AUTH_CONFIG, type AuthConfig } from './config/auth-config';
import { DatabaseModule } from './database/database.module';
import { DiscoveryModule } from './discovery/discovery.module';
import { IntrospectionModule } from './introspection/introspection.module';
import { KeysModule } from './keys/keys.module';
import { RegistrationModule } from './registration/registration.module';
import { RevocationModule } from './revocation/revocation.module';
import { TokenModule } from './token/token.module';
import { UserInfoModule } from './userinfo/userinfo.module';

/** Configuration and the event bus, made once at start, available everywhere. */
@Global()
@Module({})
class RuntimeModule {
  static register(config: AuthConfig, eventBus: EventBus): DynamicModule {
    return {
      module: RuntimeModule,
      providers: [
        { provide: AUTH_CONFIG, useValue: config },
        { provide: EVENT_BUS, useValue: eventBus },
      ],
      exports: [AUTH_CONFIG, EVENT_BUS],
    };
  }
}

@Module({})
export class AppModule {
  static register(config: AuthConfig, eventBus: EventBus): DynamicModule {
    return {
      module: AppModule,
      imports: [
        RuntimeModule.register(config, eventBus),
        DatabaseModule,
        ClientAuthModule,
        KeysModule,
        AccountsModule,
        AuthorizeModule,
        DiscoveryModule,
        RegistrationModule,
        TokenModule,
        RevocationModule,
        IntrospectionModule,
        UserInfoModule,
      ],
    };
  }
}
