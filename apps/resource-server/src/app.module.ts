import { type DynamicModule, Global, Module } from '@nestjs/common';
import { BearerAuthModule } from '@platform/bearer-auth';
import { EVENT_BUS, type EventBus } from '@platform/event-bus';
import { RESOURCE_CONFIG, type ResourceConfig } from './config/resource-config';
import { AccountModule } from './account/account.module';
import { AnalyticsModule } from './analytics/analytics.module';
import { AppearanceModule } from './appearance/appearance.module';
import { CommentsModule } from './comments/comments.module';
import { CouponsModule } from './coupons/coupons.module';
import { CoursesModule } from './courses/courses.module';
import { CurriculumModule } from './curriculum/curriculum.module';
import { DatabaseModule } from './database/database.module';
import { DigitalProductsModule } from './digital-products/digital-products.module';
import { EventsModule } from './events/events.module';
import { FormsModule } from './forms/forms.module';
import { LecturersModule } from './lecturers/lecturers.module';
import { MembersModule } from './members/members.module';
import { MembershipPlansModule } from './membership-plans/membership-plans.module';
import { OrdersModule } from './orders/orders.module';
import { PagesModule } from './pages/pages.module';
import { PostsModule } from './posts/posts.module';
import { SchoolModule } from './school/school.module';
import { SeedModule } from './seed/seed.module';
import { StorageModule } from './storage/storage.module';
import { StudentsModule } from './students/students.module';
import { SubscriptionsModule } from './subscriptions/subscriptions.module';
import { TenancyModule } from './tenancy/tenancy.module';
import { SCOPES } from '@platform/scopes';
import { DocumentsModule } from './documents';
import { McpModule } from './mcp';
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
];

@Module({})
export class AppModule {
  static register(config: ResourceConfig, eventBus: EventBus): DynamicModule {
    return {
      module: AppModule,
      imports: [
        RuntimeModule.register(config, eventBus),
        BearerAuthModule.forRoot({
          introspectionEndpoint: config.introspection.endpoint,
          clientId: config.introspection.clientId,
          clientSecret: config.introspection.clientSecret,
          resource: config.resource,
          resourceMetadataUrl: config.resourceMetadataUrl,
          redisUrl: config.redisUrl,
          eventBus,
          cache: {
            ttlCeilingSeconds: config.introspection.cacheTtlSeconds,
            inactiveTtlSeconds: config.introspection.inactiveTtlSeconds,
          },
        }),
        DatabaseModule,
        TenancyModule,
        SeedModule,
        ...API_MODULES,
        // The origin's documents; the issuer is the same origin as the API.
        DocumentsModule.register({ publicBaseUrl: config.resource, issuer: config.resource, scopes: SCOPES, pricingFile: config.pricingFile }),
        OpenApiModule.register({ publicBaseUrl: config.resource, issuer: config.resource, scopes: SCOPES }),
        McpModule.register({ publicBaseUrl: config.resource, defaultSchoolId: config.defaultSchoolId }),
      ],
    };
  }
}
