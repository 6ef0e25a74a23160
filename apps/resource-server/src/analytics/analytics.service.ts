import { Injectable } from '@nestjs/common';
import type { AuthPrincipal } from '@platform/bearer-auth';
import { InvalidRequestError } from '@platform/oauth-errors';
import { notFound } from '../common/errors';
import { iso } from '../common/fields';
import { ViewerService } from '../tenancy/viewer.service';
import type {
  EnrollmentsReportDto,
  RevenueQueryDto,
  RevenueReportDto,
  SeriesQueryDto,
  TopCoursesQueryDto,
  TopCoursesReportDto,
} from './analytics.dto';
import { AnalyticsRepository, type Interval, type Range } from './analytics.repository';

/** Default ranges end now and cover this many periods, the current one included. */
const DEFAULT_PERIODS: Record<Interval, number> = { day: 30, month: 12 };
/** Longest series a request may ask for. */
const MAX_PERIODS: Record<Interval, number> = { day: 400, month: 120 };
const DAY_MS = 24 * 3600 * 1000;
const MAX_RANGE_MS = 10 * 366 * DAY_MS;

/**
 * Revenue, enrollment and course figures, computed from orders, enrollments and
 * subscriptions of the token's school (analytics:read; nothing public).
 */
@Injectable()
export class AnalyticsService {
  constructor(
    private readonly viewers: ViewerService,
    private readonly analytics: AnalyticsRepository,
  ) {}

  async revenue(principal: AuthPrincipal, query: RevenueQueryDto, now = new Date()): Promise<RevenueReportDto> {
    const { range, school } = await this.range(principal, query, now);
    const currency = query.currency ?? school.currency;
    const [rows, subscriptions] = await Promise.all([
      this.analytics.findRevenueSeries(range, currency),
      this.analytics.findActiveSubscriptionFigures(range.schoolId, currency),
    ]);
    const series = rows.map((row) => ({
      period: row.period,
      gross_revenue_cents: Number(row.gross),
      refunded_cents: Number(row.refunded),
      net_revenue_cents: Number(row.gross) - Number(row.refunded),
      paid_orders: Number(row.paid_orders),
    }));
    const sum = (key: 'gross_revenue_cents' | 'refunded_cents' | 'net_revenue_cents' | 'paid_orders') =>
      series.reduce((total, point) => total + point[key], 0);
    return {
      timezone: range.timezone,
      from: iso(range.from),
      to: iso(range.to),
      interval: range.interval,
      currency,
      totals: {
        gross_revenue_cents: sum('gross_revenue_cents'),
        refunded_cents: sum('refunded_cents'),
        net_revenue_cents: sum('net_revenue_cents'),
        paid_orders: sum('paid_orders'),
      },
      series,
      subscriptions: { active: subscriptions.active, monthly_recurring_revenue_cents: subscriptions.mrrCents },
    };
  }

  async enrollments(principal: AuthPrincipal, query: SeriesQueryDto, now = new Date()): Promise<EnrollmentsReportDto> {
    const { range } = await this.range(principal, query, now);
    const series = (await this.analytics.findEnrollmentSeries(range)).map((row) => ({
      period: row.period,
      enrollments: Number(row.enrollments),
      completions: Number(row.completions),
    }));
    return {
      timezone: range.timezone,
      from: iso(range.from),
      to: iso(range.to),
      interval: range.interval,
      totals: {
        enrollments: series.reduce((total, point) => total + point.enrollments, 0),
        completions: series.reduce((total, point) => total + point.completions, 0),
      },
      series,
    };
  }

  async topCourses(principal: AuthPrincipal, query: TopCoursesQueryDto, now = new Date()): Promise<TopCoursesReportDto> {
    const { range, school } = await this.range(principal, { interval: 'month', from: query.from, to: query.to }, now);
    const currency = query.currency ?? school.currency;
    const rows = await this.analytics.findTopCourses(range.schoolId, range, currency, query.by, query.limit);
    return {
      timezone: range.timezone,
      from: iso(range.from),
      to: iso(range.to),
      currency,
      by: query.by,
      data: rows.map((row) => ({
        course_id: row.course_id,
        title: row.title,
        published: row.published,
        enrollments: Number(row.enrollments),
        revenue_cents: Number(row.revenue),
        units_sold: Number(row.units),
      })),
    };
  }

  private async range(
    principal: AuthPrincipal,
    query: { interval: Interval; from?: Date; to?: Date },
    now: Date,
  ): Promise<{ range: Range; school: { timezone: string; currency: string } }> {
    const { schoolId } = await this.viewers.staff(principal);
    const school = await this.analytics.findSchoolTimezoneAndCurrency(schoolId);
    if (!school) throw notFound('school');
    const to = query.to ?? now;
    const from = query.from ?? (await this.analytics.findPeriodStart(school.timezone, query.interval, DEFAULT_PERIODS[query.interval], to));
    if (from >= to) throw new InvalidRequestError('from: must be before to');
    if (to.getTime() - from.getTime() > MAX_RANGE_MS) throw new InvalidRequestError('from: the range is at most ten years');
    const approxPeriods = query.interval === 'day' ? (to.getTime() - from.getTime()) / DAY_MS : (to.getTime() - from.getTime()) / (30 * DAY_MS);
    if (approxPeriods > MAX_PERIODS[query.interval]) {
      throw new InvalidRequestError(`from: at most ${MAX_PERIODS[query.interval]} ${query.interval}s per series; use a longer interval`);
    }
    return { range: { schoolId, timezone: school.timezone, interval: query.interval, from, to }, school };
  }
}
