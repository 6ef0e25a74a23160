import { type DynamicModule, Global, Module } from '@nestjs/common';
import { BearerAuthModule } from '@platform/bearer-auth';
import { EVENT_BUS, type EventBus } from '@platform/event-bus';
import type { LoggingOptions } from '@platform/logging';
import { originDpopNonces } from './config/dpop-nonces';
import { RESOURCE_CONFIG, type ResourceConfig } from './config/resource-config';
import { AccountModule } from './account/account.module';
import { AnalyticsModule } from './analytics/analytics.module';
import { AppearanceModule } from './appearance/appearance.module';
import { AuditLogModule, SecurityEventsIngestModule } from './audit-log/audit-log.module';
import { CommentsModule } from './comments/comments.module';
import { CouponsModule } from './coupons/coupons.module';
import { CoursesModule } from './courses/courses.module';
import { CurriculumModule } from './curriculum/curriculum.module';
import { DatabaseModule } from './database/database.module';
import { DigitalProductsModule } from './digital-products/digital-products.module';
import { EventsModule } from './events/events.module';
import { FormsModule } from './forms/forms.module';
import { HealthModule } from './health/health.module';
import { LecturersModule } from './lecturers/lecturers.module';
import { MaintenanceModule } from './maintenance/maintenance.module';
import { MembersModule } from './members/members.module';
import { MembershipPlansModule } from './membership-plans/membership-plans.module';
import { ObservabilityModule } from './observability/observability.module';
import { ResourceMetrics } from './observability/resource-metrics';
import { OrdersModule } from './orders/orders.module';
import { OutboxModule } from './outbox/outbox.module';
import { PagesModule } from './pages/pages.module';
import { PostsModule } from './posts/posts.module';
import { SchoolModule } from './school/school.module';
import { SeedModule } from './seed/seed.module';
import { StorageModule } from './storage/storage.module';
import { StudentsModule } from './students/students.module';
import { SubscriptionsModule } from './subscriptions/subscriptions.module';
import { TenancyModule } from './tenancy/tenancy.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { SCOPES } from '@platform/scopes';
import { DocumentsModule } from './documents';
import { McpModule, mcpScopes } from './mcp';
import { OpenApiModule } from './openapi';

/** Configuration and the event bus, made once at start, available everywhere. */
@Global()
@Module({})
class RuntimeModule {
  static register(config: ResourceConfig, eventBus: EventBus): DynamicModule {
    return {
      module: RuntimeModule,
      providers: [
        { provide: RESOURCE_CONFIG, useValue: config },
        { provide: EVENT_BUS, useValue: eventBus },
      ],
      exports: [RESOURCE_CONFIG, EVENT_BUS],
    };
  }
}

/** The course platform's API (/api/v1), one module per resource. */
export const API_MODULES = [
  SchoolModule,
  AppearanceModule,
  AccountModule,
  CoursesModule,
  CurriculumModule,
  LecturersModule,
  StudentsModule,
  MembersModule,
  OrdersModule,
  CouponsModule,
  PostsModule,
  CommentsModule,
  EventsModule,
  MembershipPlansModule,
  SubscriptionsModule,
  DigitalProductsModule,
  PagesModule,
  FormsModule,
  AnalyticsModule,
  StorageModule,
  AuditLogModule,
  WebhooksModule,
];

/** Where the logs go and how much of them; LOG_LEVEL to stdout unless the caller says otherwise. */
export type AppLogging = Omit<LoggingOptions, 'service'>;

@Module({})
export class AppModule {
  static register(config: ResourceConfig, eventBus: EventBus, logging?: AppLogging): DynamicModule {
    // One registry per application instance, shared by the HTTP metrics and the bearer validation.
    const metrics = new ResourceMetrics();
    return {
      module: AppModule,
      imports: [
        RuntimeModule.register(config, eventBus),
        ObservabilityModule.register(metrics, logging ?? { level: config.operations.logLevel }),
        BearerAuthModule.forRoot({
          introspectionEndpoint: config.introspection.endpoint,
          clientId: config.introspection.clientId,
          clientSecret: config.introspection.clientSecret,
          resource: config.resource,
          publicBaseUrl: config.resource,
          resourceMetadataUrl: config.resourceMetadataUrl,
          redisUrl: config.redisUrl,
          eventBus,
          cache: {
            ttlCeilingSeconds: config.introspection.cacheTtlSeconds,
            inactiveTtlSeconds: config.introspection.inactiveTtlSeconds,
          },
          metrics,
          dpop: {
            maxAgeSeconds: config.dpop.proofMaxAgeSeconds,
            nonces: config.dpop.nonceSecret === undefined ? undefined : originDpopNonces(config.dpop.nonceSecret),
          },
        }),
        DatabaseModule,
        OutboxModule,
        HealthModule,
        TenancyModule,
        SeedModule,
        ...API_MODULES,
        SecurityEventsIngestModule,
        MaintenanceModule,
        // The origin's documents; the issuer is the same origin as the API.
        DocumentsModule.register({
          publicBaseUrl: config.resource,
          issuer: config.resource,
          scopes: SCOPES,
          pricingFile: config.pricingFile,
          mcpScopes: mcpScopes(),
        }),
        OpenApiModule.register({ publicBaseUrl: config.resource, issuer: config.resource, scopes: SCOPES }),
        McpModule.register({ publicBaseUrl: config.resource, defaultSchoolId: config.defaultSchoolId }),
      ],
    };
  }
}
