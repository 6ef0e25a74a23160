import { Injectable, type Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { AnalyticsService } from '../analytics/analytics.service';
import { AuditLogService } from '../audit-log/audit-log.service';
import { CouponsService } from '../coupons/coupons.service';
import { CoursesService } from '../courses/courses.service';
import { CurriculumService } from '../curriculum/curriculum.service';
import { DigitalProductsService } from '../digital-products/digital-products.service';
import { EventsService } from '../events/events.service';
import { LecturersService } from '../lecturers/lecturers.service';
import { MembersService } from '../members/members.service';
import { MembershipPlansService } from '../membership-plans/membership-plans.service';
import { OrdersService } from '../orders/orders.service';
import { PostsService } from '../posts/posts.service';
import { SchoolService } from '../school/school.service';
import { StudentsService } from '../students/students.service';

/**
 * The REST API's services that the tools call: the same instances the controllers use. The
 * catalog tools call them with the anonymous principal, the private tools with the caller's.
 */
export interface SchoolServices {
  readonly students: StudentsService;
  readonly members: MembersService;
  readonly orders: OrdersService;
  readonly analytics: AnalyticsService;
  readonly coupons: CouponsService;
  readonly courses: CoursesService;
  readonly curriculum: CurriculumService;
  readonly events: EventsService;
  readonly posts: PostsService;
  readonly lecturers: LecturersService;
  readonly membershipPlans: MembershipPlansService;
  readonly digitalProducts: DigitalProductsService;
  readonly school: SchoolService;
  readonly auditLog: AuditLogService;
}

export const SCHOOL_SERVICES = Symbol('SCHOOL_SERVICES');

/**
 * The API modules' own service instances, looked up in the application (the feature modules
 * keep their services to themselves; `strict: false` finds them where they are registered),
 * once, on first use. So a tool reaches the data exactly as the REST route does: the
 * service, its ViewerService school resolution and its repository.
 */
@Injectable()
export class ApplicationSchoolServices implements SchoolServices {
  private readonly resolved = new Map<Type, unknown>();

  constructor(private readonly moduleRef: ModuleRef) {}

  get students() { return this.service(StudentsService); }
  get members() { return this.service(MembersService); }
  get orders() { return this.service(OrdersService); }
  get analytics() { return this.service(AnalyticsService); }
  get coupons() { return this.service(CouponsService); }
  get courses() { return this.service(CoursesService); }
  get curriculum() { return this.service(CurriculumService); }
  get events() { return this.service(EventsService); }
  get posts() { return this.service(PostsService); }
  get lecturers() { return this.service(LecturersService); }
  get membershipPlans() { return this.service(MembershipPlansService); }
  get digitalProducts() { return this.service(DigitalProductsService); }
  get school() { return this.service(SchoolService); }
  get auditLog() { return this.service(AuditLogService); }

  private service<T>(type: Type<T>): T {
    const cached = this.resolved.get(type) as T | undefined;
    if (cached !== undefined) return cached;
    const instance = this.moduleRef.get(type, { strict: false });
    this.resolved.set(type, instance);
    return instance;
  }
}
