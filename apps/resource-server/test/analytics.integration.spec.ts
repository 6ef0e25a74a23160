import { AnalyticsService } from '../src/analytics/analytics.service';
import { PrismaService } from '../src/database/prisma.service';
import { DEMO_OWNER } from './support/principals';
import { startTestResourceServer, type TestResourceServer } from './support/test-resource-server';

/**
 * The reports against figures computed here independently, in JavaScript, from the seeded
 * rows: different code, same definitions (see analytics.dto.ts).
 */
const TZ = 'America/New_York';

function periodOf(date: Date, interval: 'day' | 'month'): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone: TZ, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(date);
  const part = (type: string) => parts.find((p) => p.type === type)?.value;
  return interval === 'month' ? `${part('year')}-${part('month')}` : `${part('year')}-${part('month')}-${part('day')}`;
}

const inRange = (date: Date | null, from: Date, to: Date): date is Date => date !== null && date >= from && date < to;

function add(map: Map<string, number>, key: string, amount: number): void {
  map.set(key, (map.get(key) ?? 0) + amount);
}

describe('analytics on the seeded demo school', () => {
  let server: TestResourceServer;
  let prisma: PrismaService;
  let analytics: AnalyticsService;
  const now = new Date();

  beforeAll(async () => {
    server = await startTestResourceServer();
    prisma = server.app.get(PrismaService);
    analytics = server.app.get(AnalyticsService);
  }, 120_000);

  afterAll(async () => {
    await server?.close();
  });

  it('reports revenue by month over the last 12 months in the school’s time zone', async () => {
    const report = await analytics.revenue(DEMO_OWNER, { interval: 'month' }, now);
    const from = new Date(report.from);
    expect(report).toMatchObject({ timezone: TZ, currency: 'USD', interval: 'month', to: now.toISOString() });
    expect(report.series).toHaveLength(12);
    expect(report.series[0].period).toBe(periodOf(from, 'month'));
    expect(report.series.at(-1)?.period).toBe(periodOf(now, 'month'));
    // The range starts at midnight of the first of a month, New York time.
    expect(periodOf(new Date(from.getTime() - 1), 'day')).not.toBe(periodOf(from, 'day'));

    const orders = await prisma.order.findMany({ where: { schoolId: 'demo-school', currency: 'USD' } });
    const gross = new Map<string, number>();
    const refunded = new Map<string, number>();
    const paid = new Map<string, number>();
    for (const order of orders) {
      if ((order.status === 'paid' || order.status === 'refunded') && inRange(order.paidAt, from, now)) {
        add(gross, periodOf(order.paidAt, 'month'), order.totalCents);
        add(paid, periodOf(order.paidAt, 'month'), 1);
      }
      if (order.status === 'refunded' && inRange(order.refundedAt, from, now)) add(refunded, periodOf(order.refundedAt, 'month'), order.totalCents);
    }
    expect(report.series).toEqual(
      report.series.map(({ period }) => ({
        period,
        gross_revenue_cents: gross.get(period) ?? 0,
        refunded_cents: refunded.get(period) ?? 0,
        net_revenue_cents: (gross.get(period) ?? 0) - (refunded.get(period) ?? 0),
        paid_orders: paid.get(period) ?? 0,
      })),
    );
    const sum = (map: Map<string, number>) => [...map.values()].reduce((a, b) => a + b, 0);
    expect(report.totals).toEqual({
      gross_revenue_cents: sum(gross),
      refunded_cents: sum(refunded),
      net_revenue_cents: sum(gross) - sum(refunded),
      paid_orders: sum(paid),
    });
    expect(report.totals.paid_orders).toBeGreaterThan(30);
    expect(report.totals.refunded_cents).toBeGreaterThan(0);
  });

  it('reports the recurring revenue of the active subscriptions', async () => {
    const report = await analytics.revenue(DEMO_OWNER, { interval: 'month' }, now);
    const active = await prisma.subscription.findMany({ where: { schoolId: 'demo-school', status: 'active' }, include: { plan: true } });
    const mrr = Math.round(active.reduce((total, s) => total + (s.plan.interval === 'year' ? s.plan.priceCents / 12 : s.plan.priceCents), 0));
    expect(report.subscriptions).toEqual({ active: active.length, monthly_recurring_revenue_cents: mrr });
    // 2 monthly at 29.00, 2 yearly at 290.00 / 12, 1 legacy at 9.00
    expect(report.subscriptions).toEqual({ active: 5, monthly_recurring_revenue_cents: 5800 + 4833 + 900 });
  });

  it('counts an order paid late on the last day of a month, New York time, in that month', async () => {
    // 2026-03-01T03:00Z is 22:00 on 28 February in New York.
    await prisma.order.create({
      data: {
        id: 'ord-tz-edge',
        schoolId: 'demo-school',
        number: 'DA-TZ-1',
        customerEmail: 'edge@students.test',
        status: 'paid',
        currency: 'USD',
        subtotalCents: 1234,
        totalCents: 1234,
        placedAt: new Date('2026-03-01T02:58:00Z'),
        paidAt: new Date('2026-03-01T03:00:00Z'),
      },
    });
    try {
      const range = { interval: 'month' as const, from: new Date('2026-02-01T05:00:00Z'), to: new Date('2026-04-01T04:00:00Z') };
      const report = await analytics.revenue(DEMO_OWNER, range, now);
      expect(report.series.map((point) => point.period)).toEqual(['2026-02', '2026-03']);
      const inFebruary = await prisma.order.findMany({
        where: { schoolId: 'demo-school', status: { in: ['paid', 'refunded'] }, paidAt: { gte: range.from, lt: new Date('2026-03-01T05:00:00Z') } },
      });
      expect(report.series[0].gross_revenue_cents).toBe(inFebruary.reduce((total, order) => total + order.totalCents, 0));
      expect(inFebruary.map((order) => order.id)).toContain('ord-tz-edge');
    } finally {
      await prisma.order.delete({ where: { id: 'ord-tz-edge' } });
    }
  });

  it('reports enrollments and completions by day over the last 30 days', async () => {
    const report = await analytics.enrollments(DEMO_OWNER, { interval: 'day' }, now);
    const from = new Date(report.from);
    expect(report.series).toHaveLength(30);
    const enrollments = await prisma.enrollment.findMany({ where: { schoolId: 'demo-school' } });
    const started = new Map<string, number>();
    const completed = new Map<string, number>();
    for (const enrollment of enrollments) {
      if (inRange(enrollment.enrolledAt, from, now)) add(started, periodOf(enrollment.enrolledAt, 'day'), 1);
      if (inRange(enrollment.completedAt, from, now)) add(completed, periodOf(enrollment.completedAt, 'day'), 1);
    }
    expect(report.series).toEqual(
      report.series.map(({ period }) => ({ period, enrollments: started.get(period) ?? 0, completions: completed.get(period) ?? 0 })),
    );
    expect(new Set(report.series.map((point) => point.period)).size).toBe(30);
  });

  it('ranks courses by revenue and by enrollments', async () => {
    const from = new Date(now.getTime() - 365 * 24 * 3600 * 1000);
    const items = await prisma.orderItem.findMany({ where: { schoolId: 'demo-school', courseId: { not: null } }, include: { order: true } });
    const enrollments = await prisma.enrollment.findMany({ where: { schoolId: 'demo-school' } });
    const courses = await prisma.course.findMany({ where: { schoolId: 'demo-school' } });
    const figures = courses
      .map((course) => ({
        course_id: course.id,
        title: course.title,
        published: course.published,
        enrollments: enrollments.filter((e) => e.courseId === course.id && inRange(e.enrolledAt, from, now)).length,
        ...items
          .filter((i) => i.courseId === course.id && i.order.status === 'paid' && i.order.currency === 'USD' && inRange(i.order.paidAt, from, now))
          .reduce((sum, i) => ({ revenue_cents: sum.revenue_cents + i.totalCents, units_sold: sum.units_sold + i.quantity }), { revenue_cents: 0, units_sold: 0 }),
      }))
      .filter((course) => course.enrollments > 0 || course.revenue_cents > 0);

    const byRevenue = [...figures].sort((a, b) => b.revenue_cents - a.revenue_cents || b.enrollments - a.enrollments || a.course_id.localeCompare(b.course_id));
    const report = await analytics.topCourses(DEMO_OWNER, { from, by: 'revenue', limit: 10 }, now);
    expect(report.data).toEqual(byRevenue);
    expect(report.data.length).toBeGreaterThanOrEqual(3);

    const byEnrollments = [...figures].sort((a, b) => b.enrollments - a.enrollments || b.revenue_cents - a.revenue_cents || a.course_id.localeCompare(b.course_id));
    expect((await analytics.topCourses(DEMO_OWNER, { from, by: 'enrollments', limit: 2 }, now)).data).toEqual(byEnrollments.slice(0, 2));
  });

  it('refuses ranges that are empty or too long, naming the parameter', async () => {
    await expect(analytics.revenue(DEMO_OWNER, { interval: 'month', from: now, to: new Date(now.getTime() - 1) }, now)).rejects.toThrow(/^from: /);
    await expect(
      analytics.enrollments(DEMO_OWNER, { interval: 'day', from: new Date(now.getTime() - 500 * 24 * 3600 * 1000) }, now),
    ).rejects.toThrow(/^from: at most 400 days/);
  });
});
