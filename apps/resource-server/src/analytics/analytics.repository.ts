import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';

/**
 * Aggregates in SQL, grouped by day or month in the school's time zone. Timestamps are stored
 * as UTC wall-clock `timestamp(3)`: `col AT TIME ZONE 'UTC' AT TIME ZONE tz` is local time,
 * and range bounds are compared as UTC wall-clock values. Empty periods are filled by
 * generate_series, so every series has one point per period of the range.
 */

export type Interval = 'day' | 'month';

export interface Range {
  schoolId: string;
  timezone: string;
  interval: Interval;
  from: Date;
  to: Date;
}

const PERIOD_FORMAT: Record<Interval, string> = { day: 'YYYY-MM-DD', month: 'YYYY-MM' };
const STEP: Record<Interval, string> = { day: '1 day', month: '1 month' };

export interface RevenueRow {
  period: string;
  gross: bigint;
  refunded: bigint;
  paid_orders: bigint;
}

export interface EnrollmentRow {
  period: string;
  enrollments: bigint;
  completions: bigint;
}

export interface CourseFiguresRow {
  course_id: string;
  title: string;
  published: boolean;
  enrollments: bigint;
  revenue: bigint;
  units: bigint;
}

@Injectable()
export class AnalyticsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async findSchoolTimezoneAndCurrency(schoolId: string): Promise<{ timezone: string; currency: string } | null> {
    return this.prisma.school.findUnique({ where: { id: schoolId }, select: { timezone: true, currency: true } });
  }

  /** The start (UTC) of the period `periods - 1` periods before the current one, in the time zone. */
  async findPeriodStart(timezone: string, interval: Interval, periods: number, now: Date): Promise<Date> {
    const rows = await this.prisma.$queryRaw<{ start: Date }[]>`
      SELECT ((date_trunc(${interval}, ${now.toISOString()}::timestamptz AT TIME ZONE ${timezone})
               - (${periods - 1} * ${STEP[interval]}::interval)) AT TIME ZONE ${timezone}) AS start`;
    return rows[0].start;
  }

  findRevenueSeries(range: Range, currency: string): Promise<RevenueRow[]> {
    const { schoolId, timezone: tz, interval, from, to } = range;
    return this.prisma.$queryRaw<RevenueRow[]>`
      WITH periods AS (
        SELECT generate_series(
          date_trunc(${interval}, ${from.toISOString()}::timestamptz AT TIME ZONE ${tz}),
          date_trunc(${interval}, (${to.toISOString()}::timestamptz - interval '1 millisecond') AT TIME ZONE ${tz}),
          ${STEP[interval]}::interval) AS start
      ),
      paid AS (
        SELECT date_trunc(${interval}, paid_at AT TIME ZONE 'UTC' AT TIME ZONE ${tz}) AS start,
               SUM(total_cents) AS cents, COUNT(*) AS orders
        FROM orders
        WHERE school_id = ${schoolId} AND currency = ${currency} AND status IN ('paid', 'refunded')
          AND paid_at >= (${from.toISOString()}::timestamptz AT TIME ZONE 'UTC')
          AND paid_at < (${to.toISOString()}::timestamptz AT TIME ZONE 'UTC')
        GROUP BY 1
      ),
      refunded AS (
        SELECT date_trunc(${interval}, refunded_at AT TIME ZONE 'UTC' AT TIME ZONE ${tz}) AS start, SUM(total_cents) AS cents
        FROM orders
        WHERE school_id = ${schoolId} AND currency = ${currency} AND status = 'refunded'
          AND refunded_at >= (${from.toISOString()}::timestamptz AT TIME ZONE 'UTC')
          AND refunded_at < (${to.toISOString()}::timestamptz AT TIME ZONE 'UTC')
        GROUP BY 1
      )
      SELECT to_char(periods.start, ${PERIOD_FORMAT[interval]}) AS period,
             COALESCE(paid.cents, 0)::bigint AS gross,
             COALESCE(refunded.cents, 0)::bigint AS refunded,
             COALESCE(paid.orders, 0)::bigint AS paid_orders
      FROM periods
      LEFT JOIN paid ON paid.start = periods.start
      LEFT JOIN refunded ON refunded.start = periods.start
      ORDER BY periods.start`;
  }

  /** Active subscriptions now, and their plans' monthly price in the currency. */
  async findActiveSubscriptionFigures(schoolId: string, currency: string): Promise<{ active: number; mrrCents: number }> {
    const rows = await this.prisma.$queryRaw<{ active: bigint; mrr: bigint }[]>`
      SELECT COUNT(*)::bigint AS active,
             COALESCE(ROUND(SUM(CASE WHEN p.interval = 'year' THEN p.price_cents / 12.0 ELSE p.price_cents END)), 0)::bigint AS mrr
      FROM subscriptions s
      JOIN membership_plans p ON p.school_id = s.school_id AND p.id = s.plan_id
      WHERE s.school_id = ${schoolId} AND s.status = 'active' AND p.currency = ${currency}`;
    return { active: Number(rows[0].active), mrrCents: Number(rows[0].mrr) };
  }

  findEnrollmentSeries(range: Range): Promise<EnrollmentRow[]> {
    const { schoolId, timezone: tz, interval, from, to } = range;
    return this.prisma.$queryRaw<EnrollmentRow[]>`
      WITH periods AS (
        SELECT generate_series(
          date_trunc(${interval}, ${from.toISOString()}::timestamptz AT TIME ZONE ${tz}),
          date_trunc(${interval}, (${to.toISOString()}::timestamptz - interval '1 millisecond') AT TIME ZONE ${tz}),
          ${STEP[interval]}::interval) AS start
      ),
      started AS (
        SELECT date_trunc(${interval}, enrolled_at AT TIME ZONE 'UTC' AT TIME ZONE ${tz}) AS start, COUNT(*) AS n
        FROM enrollments
        WHERE school_id = ${schoolId}
          AND enrolled_at >= (${from.toISOString()}::timestamptz AT TIME ZONE 'UTC')
          AND enrolled_at < (${to.toISOString()}::timestamptz AT TIME ZONE 'UTC')
        GROUP BY 1
      ),
      completed AS (
        SELECT date_trunc(${interval}, completed_at AT TIME ZONE 'UTC' AT TIME ZONE ${tz}) AS start, COUNT(*) AS n
        FROM enrollments
        WHERE school_id = ${schoolId}
          AND completed_at >= (${from.toISOString()}::timestamptz AT TIME ZONE 'UTC')
          AND completed_at < (${to.toISOString()}::timestamptz AT TIME ZONE 'UTC')
        GROUP BY 1
      )
      SELECT to_char(periods.start, ${PERIOD_FORMAT[interval]}) AS period,
             COALESCE(started.n, 0)::bigint AS enrollments,
             COALESCE(completed.n, 0)::bigint AS completions
      FROM periods
      LEFT JOIN started ON started.start = periods.start
      LEFT JOIN completed ON completed.start = periods.start
      ORDER BY periods.start`;
  }

  findTopCourses(
    schoolId: string,
    range: { from: Date; to: Date },
    currency: string,
    by: 'revenue' | 'enrollments',
    limit: number,
  ): Promise<CourseFiguresRow[]> {
    const from = range.from.toISOString();
    const to = range.to.toISOString();
    return this.prisma.$queryRaw<CourseFiguresRow[]>`
      WITH sales AS (
        SELECT i.course_id, SUM(i.total_cents) AS revenue, SUM(i.quantity) AS units
        FROM order_items i
        JOIN orders o ON o.school_id = i.school_id AND o.id = i.order_id
        WHERE i.school_id = ${schoolId} AND i.course_id IS NOT NULL
          AND o.status = 'paid' AND o.currency = ${currency}
          AND o.paid_at >= (${from}::timestamptz AT TIME ZONE 'UTC')
          AND o.paid_at < (${to}::timestamptz AT TIME ZONE 'UTC')
        GROUP BY i.course_id
      ),
      enrolled AS (
        SELECT course_id, COUNT(*) AS n
        FROM enrollments
        WHERE school_id = ${schoolId}
          AND enrolled_at >= (${from}::timestamptz AT TIME ZONE 'UTC')
          AND enrolled_at < (${to}::timestamptz AT TIME ZONE 'UTC')
        GROUP BY course_id
      ),
      figures AS (
        SELECT c.id AS course_id, c.title, c.published,
               COALESCE(enrolled.n, 0)::bigint AS enrollments,
               COALESCE(sales.revenue, 0)::bigint AS revenue,
               COALESCE(sales.units, 0)::bigint AS units
        FROM courses c
        LEFT JOIN sales ON sales.course_id = c.id
        LEFT JOIN enrolled ON enrolled.course_id = c.id
        WHERE c.school_id = ${schoolId} AND (sales.course_id IS NOT NULL OR enrolled.course_id IS NOT NULL)
      )
      SELECT * FROM figures
      ORDER BY CASE WHEN ${by} = 'revenue' THEN revenue ELSE enrollments END DESC,
               CASE WHEN ${by} = 'revenue' THEN enrollments ELSE revenue END DESC,
               course_id
      LIMIT ${limit}`;
  }
}
