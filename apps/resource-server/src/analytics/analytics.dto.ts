import { z } from 'zod';
import { currency, dateTime, isoOut } from '../common/fields';
import { zodDto } from '../common/validation';

export const INTERVALS = ['day', 'month'] as const;

const range = {
  from: dateTime.optional().describe('Start, inclusive (RFC 3339). Default: 30 days (interval=day) or 12 months (interval=month) ago, at a period start'),
  to: dateTime.optional().describe('End, exclusive (RFC 3339). Default: now'),
};

export const SeriesQuery = z.object({
  interval: z.enum(INTERVALS).default('month').describe('Group by day or by month, in the school’s time zone'),
  ...range,
});
export class SeriesQueryDto extends zodDto(SeriesQuery, 'input') {}

export const RevenueQuery = SeriesQuery.extend({
  currency: currency.optional().describe('Figures are in one currency: default the school’s'),
});
export class RevenueQueryDto extends zodDto(RevenueQuery, 'input') {}

export const TopCoursesQuery = z.object({
  ...range,
  by: z.enum(['revenue', 'enrollments']).default('revenue').describe('What to rank by (ties: by course id)'),
  limit: z.coerce.number().int().min(1).max(100).default(10),
  currency: currency.optional().describe('Revenue is counted in one currency: default the school’s'),
});
export class TopCoursesQueryDto extends zodDto(TopCoursesQuery, 'input') {}

const reportFrame = {
  timezone: z.string(),
  from: isoOut,
  to: isoOut,
};

const RevenuePoint = z.object({
  period: z.string().describe('YYYY-MM-DD (day) or YYYY-MM (month), in the school’s time zone'),
  gross_revenue_cents: z.number().int().describe('Totals of the orders paid in the period (refunded later or not)'),
  refunded_cents: z.number().int().describe('Totals of the orders refunded in the period'),
  net_revenue_cents: z.number().int(),
  paid_orders: z.number().int(),
});

export const RevenueReport = z.object({
  ...reportFrame,
  interval: z.enum(INTERVALS),
  currency: z.string(),
  totals: RevenuePoint.omit({ period: true }),
  series: z.array(RevenuePoint).describe('Every period of the range, empty ones included'),
  subscriptions: z
    .object({
      active: z.number().int().describe('Subscriptions active now'),
      monthly_recurring_revenue_cents: z.number().int().describe('Their plans’ prices per month (yearly plans / 12), in currency'),
    })
    .describe('Now, whatever the range'),
});
export class RevenueReportDto extends zodDto(RevenueReport, 'output') {}

const EnrollmentPoint = z.object({
  period: z.string().describe('YYYY-MM-DD (day) or YYYY-MM (month), in the school’s time zone'),
  enrollments: z.number().int().describe('Enrollments started in the period'),
  completions: z.number().int().describe('Enrollments completed in the period'),
});

export const EnrollmentsReport = z.object({
  ...reportFrame,
  interval: z.enum(INTERVALS),
  totals: EnrollmentPoint.omit({ period: true }),
  series: z.array(EnrollmentPoint).describe('Every period of the range, empty ones included'),
});
export class EnrollmentsReportDto extends zodDto(EnrollmentsReport, 'output') {}

const CourseFigures = z.object({
  course_id: z.string(),
  title: z.string(),
  published: z.boolean(),
  enrollments: z.number().int().describe('Enrollments started in the range'),
  revenue_cents: z.number().int().describe('Course items of orders paid in the range and not refunded'),
  units_sold: z.number().int(),
});

export const TopCoursesReport = z.object({
  ...reportFrame,
  currency: z.string(),
  by: z.enum(['revenue', 'enrollments']),
  data: z.array(CourseFigures).describe('Best first; courses with neither enrollments nor sales in the range are left out'),
});
export class TopCoursesReportDto extends zodDto(TopCoursesReport, 'output') {}
