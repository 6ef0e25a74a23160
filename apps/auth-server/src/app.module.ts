import { type DynamicModule, Global, Module } from '@nestjs/common';
import { EVENT_BUS, type EventBus } from '@platform/event-bus';
import type { LoggingOptions } from '@platform/logging';
import { AccountsModule } from './accounts/accounts.module';
import { AuthorizeModule } from './authorize/authorize.module';
import { ClientAuthModule } from './client-auth/client-auth.module';
import { ClientMetadataDocumentsModule } from './client-metadata-documents';
import { ConnectedAppsModule } from './connected-apps/connected-apps.module';
import { AUTH_CONFIG, type AuthConfig } from './config/auth-config';
import { DatabaseModule } from './database/database.module';
import { DiscoveryModule } from './discovery/discovery.module';
import { RevocationTrust } from './events/revocation-trust';
import { HealthModule } from './health/health.module';
import { IntrospectionModule } from './introspection/introspection.module';
import { KeysModule } from './keys/keys.module';
import { MaintenanceModule } from './maintenance/maintenance.module';
import { ObservabilityModule } from './observability/observability.module';
import { RegistrationModule } from './registration/registration.module';
import { RevocationModule } from './revocation/revocation.module';
import { SecurityEventsRelayModule } from './security-events/security-events.module';
import { TokenModule } from './token/token.module';
import { UserInfoModule } from './userinfo/userinfo.module';

/**
 * Configuration, the event bus and its one trust judge (what is held in memory about tokens and
 * clients is used only while every event is heard), made once at start, available everywhere.
 */
@Global()
@Module({})
class RuntimeModule {
  static register(config: AuthConfig, eventBus: EventBus): DynamicModule {
    return {
      module: RuntimeModule,
      providers: [
        { provide: AUTH_CONFIG, useValue: config },
        { provide: EVENT_BUS, useValue: eventBus },
        RevocationTrust,
      ],
      exports: [AUTH_CONFIG, EVENT_BUS, RevocationTrust],
    };
  }
}

/** Where the logs go and how much of them; LOG_LEVEL to stdout unless the caller says otherwise. */
export type AppLogging = Omit<LoggingOptions, 'service'>;

@Module({})
export class AppModule {
  static register(config: AuthConfig, eventBus: EventBus, logging?: AppLogging): DynamicModule {
    return {
      module: AppModule,
      imports: [
        RuntimeModule.register(config, eventBus),
        ObservabilityModule.register(logging ?? { level: config.operations.logLevel }),
        DatabaseModule,
        HealthModule,
        ClientAuthModule,
        ClientMetadataDocumentsModule.register(config.cimd),
        KeysModule,
        AccountsModule,
        AuthorizeModule,
        DiscoveryModule,
        RegistrationModule,
        TokenModule,
        RevocationModule,
        IntrospectionModule,
        UserInfoModule,
        MaintenanceModule,
        ConnectedAppsModule,
        SecurityEventsRelayModule,
      ],
    };
  }
}
