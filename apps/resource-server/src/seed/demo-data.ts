import type { Prisma } from '../generated/prisma/client';

/**
 * The demo schools: a believable Demo Academy and a small Northwind Institute for tenant-
 * isolation checks. Their ids and their owners' user ids match the authorization server's
 * demo accounts (demo-owner, other-owner). Dates are relative to `now`, so the analytics show
 * the last months whenever the data is seeded; everything else is fixed (a seeded PRNG), and
 * ids sort in creation order so id-ordered lists read naturally.
 */

export const DEMO_SCHOOL_ID = 'demo-school';
export const OTHER_SCHOOL_ID = 'other-school';
export const DEMO_OWNER_USER_ID = 'demo-owner';
export const OTHER_OWNER_USER_ID = 'other-owner';

export interface TenantSeed {
  school: Prisma.SchoolUncheckedCreateInput;
  appearance: Prisma.AppearanceUncheckedCreateInput;
  lecturers: Prisma.LecturerCreateManyInput[];
  courses: Prisma.CourseCreateManyInput[];
  sections: Prisma.SectionCreateManyInput[];
  lessons: Prisma.LessonCreateManyInput[];
  students: Prisma.StudentCreateManyInput[];
  enrollments: Prisma.EnrollmentCreateManyInput[];
  members: Prisma.MemberCreateManyInput[];
  coupons: Prisma.CouponCreateManyInput[];
  orders: Prisma.OrderCreateManyInput[];
  orderItems: Prisma.OrderItemCreateManyInput[];
  posts: Prisma.PostCreateManyInput[];
  comments: Prisma.CommentCreateManyInput[];
  events: Prisma.EventCreateManyInput[];
  membershipPlans: Prisma.MembershipPlanCreateManyInput[];
  subscriptions: Prisma.SubscriptionCreateManyInput[];
  digitalProducts: Prisma.DigitalProductCreateManyInput[];
  pages: Prisma.PageCreateManyInput[];
  forms: Prisma.FormCreateManyInput[];
  formSubmissions: Prisma.FormSubmissionCreateManyInput[];
}

const DAY = 24 * 3600 * 1000;
const MINUTE = 60 * 1000;

/** mulberry32: a small deterministic PRNG, so every seed has the same shape. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pad = (n: number, width = 3) => String(n).padStart(width, '0');

type StudentRow = Prisma.StudentCreateManyInput & { id: string; email: string };

interface CourseOutline {
  id: string;
  title: string;
  slug: string;
  summary: string;
  level: 'beginner' | 'intermediate' | 'advanced';
  priceCents: number;
  lecturerId: string;
  published: boolean;
  sections: { title: string; lessons: [string, 'video' | 'text' | 'quiz' | 'download', number][] }[];
}

function curriculum(schoolId: string, courses: CourseOutline[], now: Date) {
  const sections: Prisma.SectionCreateManyInput[] = [];
  const lessons: Prisma.LessonCreateManyInput[] = [];
  courses.forEach((course) => {
    course.sections.forEach((section, s) => {
      const sectionId = `${course.id.replace(/^crs-/, 'sec-')}-${s + 1}`;
      sections.push({ id: sectionId, schoolId, courseId: course.id, title: section.title, position: s, createdAt: now, updatedAt: now });
      section.lessons.forEach(([title, kind, minutes], l) => {
        lessons.push({
          id: `${sectionId.replace(/^sec-/, 'les-')}-${l + 1}`,
          schoolId,
          courseId: course.id,
          sectionId,
          title,
          kind,
          durationMinutes: minutes,
          position: l,
          content: `# ${title}\n\nIn this lesson of “${course.title}” we work through ${title.toLowerCase()} step by step, with examples you can run.\n\n- What it is and why it matters\n- A worked example\n- A short exercise\n`,
          createdAt: now,
          updatedAt: now,
        });
      });
    });
  });
  return { sections, lessons };
}

function courseRows(schoolId: string, currency: string, courses: CourseOutline[], now: Date): Prisma.CourseCreateManyInput[] {
  return courses.map((course, i) => ({
    id: course.id,
    schoolId,
    lecturerId: course.lecturerId,
    title: course.title,
    slug: course.slug,
    summary: course.summary,
    description: `${course.summary}\n\nSelf-paced, with exercises after every section and a certificate at the end.`,
    level: course.level,
    priceCents: course.priceCents,
    currency,
    published: course.published,
    publishedAt: course.published ? new Date(now.getTime() - (400 - i * 20) * DAY) : null,
    createdAt: new Date(now.getTime() - (420 - i * 20) * DAY),
    updatedAt: now,
  }));
}

const DEMO_COURSES: CourseOutline[] = [
  {
    id: 'crs-typescript-fundamentals',
    title: 'TypeScript Fundamentals',
    slug: 'typescript-fundamentals',
    summary: 'Types, narrowing, generics and the compiler options that matter, from zero to confident.',
    level: 'beginner',
    priceCents: 4900,
    lecturerId: 'lec-maya-chen',
    published: true,
    sections: [
      { title: 'Getting started', lessons: [['Why TypeScript', 'video', 8], ['Setting up the compiler', 'text', 12], ['Your first types', 'video', 15]] },
      { title: 'The type system', lessons: [['Unions and narrowing', 'video', 18], ['Interfaces and type aliases', 'video', 14], ['Check yourself', 'quiz', 10]] },
      { title: 'Generics', lessons: [['Generic functions', 'video', 16], ['Constraints and defaults', 'text', 12], ['Cheat sheet', 'download', 2]] },
    ],
  },
  {
    id: 'crs-nestjs-in-practice',
    title: 'NestJS in Practice',
    slug: 'nestjs-in-practice',
    summary: 'Build a production API with modules, providers, guards and tests.',
    level: 'intermediate',
    priceCents: 8900,
    lecturerId: 'lec-jonas-weber',
    published: true,
    sections: [
      { title: 'Foundations', lessons: [['Modules and providers', 'video', 20], ['Controllers that stay thin', 'video', 17]] },
      { title: 'Cross-cutting concerns', lessons: [['Guards and decorators', 'video', 22], ['Exception filters', 'text', 10], ['Validation with zod', 'video', 19]] },
      { title: 'Shipping it', lessons: [['Testing with Jest', 'video', 25], ['Configuration and secrets', 'text', 11], ['Final project', 'quiz', 30]] },
    ],
  },
  {
    id: 'crs-postgresql-for-developers',
    title: 'PostgreSQL for Developers',
    slug: 'postgresql-for-developers',
    summary: 'Schema design, indexes and query plans for application developers.',
    level: 'intermediate',
    priceCents: 6900,
    lecturerId: 'lec-amara-okafor',
    published: true,
    sections: [
      { title: 'Modelling data', lessons: [['Tables, keys and constraints', 'video', 21], ['Normal forms in practice', 'text', 14]] },
      { title: 'Performance', lessons: [['How indexes work', 'video', 24], ['Reading EXPLAIN', 'video', 19], ['Index quiz', 'quiz', 8]] },
      { title: 'Transactions', lessons: [['Isolation levels', 'video', 18], ['Locks and deadlocks', 'text', 13]] },
    ],
  },
  {
    id: 'crs-web-security-essentials',
    title: 'Web Security Essentials',
    slug: 'web-security-essentials',
    summary: 'OAuth 2.0, sessions, CSRF, XSS and the OWASP Top 10 for web developers.',
    level: 'advanced',
    priceCents: 9900,
    lecturerId: 'lec-jonas-weber',
    published: true,
    sections: [
      { title: 'Authentication', lessons: [['Passwords done right', 'video', 16], ['OAuth 2.0 and PKCE', 'video', 28]] },
      { title: 'Browser attacks', lessons: [['Cross-site scripting', 'video', 20], ['CSRF and SameSite', 'text', 12], ['Content Security Policy', 'video', 17]] },
      { title: 'Operating securely', lessons: [['Secrets and key rotation', 'text', 10], ['Security checklist', 'download', 3]] },
    ],
  },
  {
    id: 'crs-advanced-typescript-patterns',
    title: 'Advanced TypeScript Patterns',
    slug: 'advanced-typescript-patterns',
    summary: 'Conditional and mapped types, branded types and type-level testing. (In production.)',
    level: 'advanced',
    priceCents: 7900,
    lecturerId: 'lec-maya-chen',
    published: false,
    sections: [{ title: 'Type-level programming', lessons: [['Conditional types', 'video', 22], ['Mapped types', 'video', 19]] }],
  },
];

const FIRST_NAMES = ['Liam', 'Sofia', 'Noah', 'Aisha', 'Mateo', 'Yuki', 'Elena', 'Omar', 'Chloe', 'Ravi', 'Hannah', 'Diego', 'Zara', 'Lukas', 'Priya', 'Tomás', 'Ingrid', 'Kwame', 'Mei', 'Felix', 'Nadia', 'Jonah', 'Leila', 'Oscar'];
const LAST_NAMES = ['Nguyen', 'Rossi', 'Schmidt', 'Khan', 'García', 'Tanaka', 'Petrov', 'Haddad', 'Martin', 'Iyer', 'Becker', 'López', 'Ali', 'Novak', 'Sharma', 'Silva', 'Larsen', 'Mensah', 'Wang', 'Fischer', 'Haddadi', 'Cohen', 'Farah', 'Berg'];

function ascii(text: string): string {
  return text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
}

export function demoAcademy(now: Date): TenantSeed {
  const schoolId = DEMO_SCHOOL_ID;
  const currency = 'USD';
  const random = prng(20261121);
  const ago = (days: number, minutes = 0) => new Date(now.getTime() - days * DAY + minutes * MINUTE);
  const created = ago(420);

  const lecturers: Prisma.LecturerCreateManyInput[] = [
    { id: 'lec-amara-okafor', name: 'Amara Okafor', headline: 'Database engineer, 12 years of PostgreSQL', bio: 'Amara designs data platforms for fintechs and teaches developers to love their database.', avatarUrl: null, websiteUrl: 'https://amara.example' },
    { id: 'lec-jonas-weber', name: 'Jonas Weber', headline: 'Backend architect and security trainer', bio: 'Jonas has built APIs for banks and start-ups and runs secure-coding workshops across Europe.', avatarUrl: null, websiteUrl: null },
    { id: 'lec-maya-chen', name: 'Maya Chen', headline: 'TypeScript consultant', bio: 'Maya helps teams migrate large JavaScript codebases to TypeScript without stopping feature work.', avatarUrl: null, websiteUrl: 'https://maya.example' },
  ].map((lecturer) => ({ ...lecturer, schoolId, createdAt: created, updatedAt: created }));

  const courses = courseRows(schoolId, currency, DEMO_COURSES, now);
  const { sections, lessons } = curriculum(schoolId, DEMO_COURSES, now);
  const published = DEMO_COURSES.filter((course) => course.published);

  const students: StudentRow[] = FIRST_NAMES.map((first, i) => ({
    id: `stu-${pad(i + 1)}`,
    schoolId,
    name: `${first} ${LAST_NAMES[i]}`,
    email: `${ascii(first)}.${ascii(LAST_NAMES[i])}@students.test`,
    createdAt: ago(365 - i * 14),
    updatedAt: ago(365 - i * 14),
  }));

  // Each student buys one to three published courses over the last year; a purchase is an
  // enrollment and an order. Orders get ids in time order.
  interface Purchase { studentIndex: number; course: CourseOutline; at: Date }
  const purchases: Purchase[] = [];
  students.forEach((_student, i) => {
    const count = 1 + Math.floor(random() * 3);
    const start = Math.floor(random() * published.length);
    for (let k = 0; k < count; k++) {
      const daysAgo = Math.max(1, Math.floor(random() * 360));
      purchases.push({ studentIndex: i, course: published[(start + k) % published.length], at: ago(daysAgo, Math.floor(random() * 600)) });
    }
  });
  purchases.sort((a, b) => a.at.getTime() - b.at.getTime());

  const coupons: Prisma.CouponCreateManyInput[] = [
    { id: 'cpn-flat20', code: 'FLAT20', amountOffCents: 2000, currency, maxRedemptions: 100, validFrom: ago(200), validUntil: ago(-60), active: true },
    { id: 'cpn-spring25', code: 'SPRING25', percentOff: 25, validFrom: ago(250), validUntil: ago(190), active: false },
    { id: 'cpn-welcome10', code: 'WELCOME10', percentOff: 10, maxRedemptions: null, active: true },
  ].map((coupon) => ({ ...coupon, schoolId, createdAt: ago(300), updatedAt: ago(300) }));

  const enrollments: Prisma.EnrollmentCreateManyInput[] = [];
  const orders: Prisma.OrderCreateManyInput[] = [];
  const orderItems: Prisma.OrderItemCreateManyInput[] = [];
  let welcomeRedemptions = 0;
  const addOrder = (
    student: StudentRow,
    at: Date,
    status: 'paid' | 'refunded' | 'failed' | 'pending',
    item: { productType: string; productId: string; courseId?: string; title: string; unitPriceCents: number },
    couponCode: string | null,
  ) => {
    const n = orders.length + 1;
    const orderId = `ord-${pad(n, 4)}`;
    const discountCents = couponCode === 'WELCOME10' ? Math.round(item.unitPriceCents * 0.1) : 0;
    const paidAt = status === 'paid' || status === 'refunded' ? new Date(at.getTime() + 2 * MINUTE) : null;
    orders.push({
      id: orderId,
      schoolId,
      number: `DA-${1000 + n}`,
      studentId: student.id,
      customerEmail: student.email,
      status,
      currency,
      subtotalCents: item.unitPriceCents,
      discountCents,
      totalCents: item.unitPriceCents - discountCents,
      couponCode,
      placedAt: at,
      paidAt,
      refundedAt: status === 'refunded' && paidAt ? new Date(Math.min(paidAt.getTime() + 3 * DAY, now.getTime() - MINUTE)) : null,
    });
    orderItems.push({
      id: `${orderId.replace('ord-', 'itm-')}-1`,
      schoolId,
      orderId,
      productType: item.productType,
      productId: item.productId,
      courseId: item.courseId ?? null,
      title: item.title,
      quantity: 1,
      unitPriceCents: item.unitPriceCents,
      totalCents: item.unitPriceCents,
    });
    if (couponCode === 'WELCOME10') welcomeRedemptions++;
  };

  const seen = new Set<string>();
  purchases.forEach((purchase, p) => {
    const student = students[purchase.studentIndex];
    const key = `${student.id}/${purchase.course.id}`;
    if (seen.has(key)) return;
    seen.add(key);
    // Every 11th purchase was refunded, every 17th failed and retried nothing, one is pending.
    const status = p % 17 === 16 ? 'failed' : p % 11 === 10 ? 'refunded' : p === purchases.length - 1 ? 'pending' : 'paid';
    addOrder(
      student,
      purchase.at,
      status,
      { productType: 'course', productId: purchase.course.id, courseId: purchase.course.id, title: purchase.course.title, unitPriceCents: purchase.course.priceCents },
      p % 5 === 0 ? 'WELCOME10' : null,
    );
    if (status !== 'paid') return;
    const ageDays = (now.getTime() - purchase.at.getTime()) / DAY;
    const progress = Math.min(100, Math.round(ageDays * (1 + random() * 4)));
    enrollments.push({
      id: `enr-${pad(enrollments.length + 1, 4)}`,
      schoolId,
      studentId: student.id,
      courseId: purchase.course.id,
      enrolledAt: new Date(purchase.at.getTime() + 3 * MINUTE),
      progressPercent: progress,
      completedAt: progress === 100 ? new Date(Math.min(purchase.at.getTime() + 30 * DAY, now.getTime() - MINUTE)) : null,
    });
  });
  // Coupons carry the redemptions the orders show.
  coupons.forEach((coupon) => {
    if (coupon.code === 'WELCOME10') coupon.redemptions = welcomeRedemptions;
  });

  const digitalProducts: Prisma.DigitalProductCreateManyInput[] = [
    { id: 'dpr-interview-audio-pack', title: 'Interview Prep Audio Pack', description: 'Ten mock interviews with commentary. (Recording in progress.)', priceCents: 1900, kind: 'audio', published: false },
    { id: 'dpr-nestjs-starter', title: 'NestJS Project Starter', description: 'A production-ready NestJS template with auth, tests and CI.', priceCents: 2900, kind: 'template', published: true },
    { id: 'dpr-typescript-cheat-sheet', title: 'TypeScript Cheat Sheet', description: 'Eight pages of types, narrowing and generics at a glance (PDF).', priceCents: 900, kind: 'ebook', published: true },
  ].map((product) => ({ ...product, schoolId, currency, fileId: null, createdAt: ago(250), updatedAt: ago(250) }));

  const membershipPlans: Prisma.MembershipPlanCreateManyInput[] = [
    { id: 'pln-legacy-basic', name: 'Basic (legacy)', description: 'The old plan, closed to new members.', priceCents: 900, interval: 'month', features: ['One course at a time'], active: false },
    { id: 'pln-monthly-all-access', name: 'All-Access Monthly', description: 'Every course, every month.', priceCents: 2900, interval: 'month', features: ['All courses', 'New courses first', 'Community Q&A'], active: true },
    { id: 'pln-yearly-all-access', name: 'All-Access Yearly', description: 'Every course for a year: two months free.', priceCents: 29000, interval: 'year', features: ['All courses', 'New courses first', 'Community Q&A', 'Certificate reviews'], active: true },
  ].map((plan) => ({ ...plan, schoolId, currency, createdAt: ago(380), updatedAt: ago(380) }));

  // A few extra sales: digital products and plan sign-ups.
  const extra: [number, number, string, number][] = [
    [2, 170, 'dpr-typescript-cheat-sheet', 900],
    [5, 120, 'dpr-nestjs-starter', 2900],
    [9, 75, 'dpr-typescript-cheat-sheet', 900],
    [14, 40, 'dpr-nestjs-starter', 2900],
    [20, 12, 'dpr-typescript-cheat-sheet', 900],
  ];
  const extraOrders = extra.map(([studentIndex, daysAgo, productId, price]) => ({ studentIndex, at: ago(daysAgo, 30), productId, price }));

  const subscriptionDefs: [number, string, string, number, number | null][] = [
    // student, plan, status, started days ago, canceled days ago
    [1, 'pln-monthly-all-access', 'active', 150, null],
    [3, 'pln-yearly-all-access', 'active', 200, null],
    [6, 'pln-monthly-all-access', 'active', 45, null],
    [8, 'pln-monthly-all-access', 'past_due', 95, null],
    [11, 'pln-yearly-all-access', 'active', 20, null],
    [15, 'pln-monthly-all-access', 'canceled', 180, 60],
    [18, 'pln-legacy-basic', 'active', 400, null],
    [22, 'pln-monthly-all-access', 'trialing', 3, null],
  ];
  const subscriptions: Prisma.SubscriptionCreateManyInput[] = subscriptionDefs.map(([s, planId, status, startedDays, canceledDays], i) => {
    const plan = membershipPlans.find((candidate) => candidate.id === planId);
    const periodDays = plan?.interval === 'year' ? 365 : 30;
    const started = ago(startedDays);
    const periods = Math.floor(startedDays / periodDays) + 1;
    return {
      id: `sub-${pad(i + 1)}`,
      schoolId,
      planId,
      studentId: students[s].id,
      status,
      startedAt: started,
      currentPeriodEnd: new Date(started.getTime() + periods * periodDays * DAY),
      canceledAt: canceledDays === null ? null : ago(canceledDays),
      createdAt: started,
      updatedAt: started,
    };
  });
  const planSignups = subscriptions
    .filter((subscription) => subscription.status !== 'trialing')
    .map((subscription) => ({ subscription, plan: membershipPlans.find((plan) => plan.id === subscription.planId) }));

  // Merge the extra sales into the order sequence by time, then renumber in time order.
  const pendingExtra = [
    ...extraOrders.map((order) => ({
      at: order.at,
      student: students[order.studentIndex],
      item: {
        productType: 'digital_product',
        productId: order.productId,
        title: digitalProducts.find((product) => product.id === order.productId)?.title ?? order.productId,
        unitPriceCents: order.price,
      },
    })),
    ...planSignups
      .filter(({ subscription }) => new Date(subscription.startedAt).getTime() > now.getTime() - 360 * DAY)
      .map(({ subscription, plan }) => ({
        at: new Date(subscription.startedAt),
        student: students.find((student) => student.id === subscription.studentId) as StudentRow,
        item: { productType: 'membership_plan', productId: subscription.planId, title: plan?.name ?? '', unitPriceCents: plan?.priceCents ?? 0 },
      })),
  ];
  for (const sale of pendingExtra) addOrder(sale.student, sale.at, 'paid', sale.item, null);
  renumberInTimeOrder(orders, orderItems, 'DA-');

  const members: Prisma.MemberCreateManyInput[] = [
    { id: 'mem-01-owner', userId: DEMO_OWNER_USER_ID, name: 'Dana Demo', email: 'demo@academy.test', role: 'owner', title: 'Founder' },
    { id: 'mem-02-admin', userId: 'demo-admin', name: 'Alex Rivera', email: 'alex@academy.test', role: 'admin', title: 'Operations' },
    { id: 'mem-03-instructor', userId: 'demo-instructor', name: 'Maya Chen', email: 'maya@academy.test', role: 'instructor', title: 'Lead instructor' },
    { id: 'mem-04-support', userId: 'demo-support', name: 'Sam Patel', email: 'sam@academy.test', role: 'support', title: 'Student success' },
  ].map((member) => ({ ...member, schoolId, createdAt: created, updatedAt: created }));

  const posts: Prisma.PostCreateManyInput[] = [
    { id: 'pst-01-welcome', title: 'Welcome to Demo Academy', slug: 'welcome', excerpt: 'Who we are and how our courses work.', published: true, days: 380 },
    { id: 'pst-02-typescript-tips', title: 'Five TypeScript tips for 2026', slug: 'five-typescript-tips', excerpt: 'Small habits that make large codebases pleasant.', published: true, days: 150 },
    { id: 'pst-03-new-security-course', title: 'New course: Web Security Essentials', slug: 'new-course-web-security', excerpt: 'OAuth, CSRF, XSS and more, with Jonas Weber.', published: true, days: 60 },
    { id: 'pst-04-roadmap', title: 'Our roadmap for next year', slug: 'roadmap', excerpt: 'Draft: what we are planning.', published: false, days: 5 },
  ].map(({ days, ...post }) => ({
    ...post,
    schoolId,
    authorName: 'Dana Demo',
    body: `${post.excerpt}\n\nThis is a demo post. It exists so that you can try the API: list posts, read one, and see its comments.`,
    publishedAt: post.published ? ago(days) : null,
    createdAt: ago(days + 1),
    updatedAt: ago(days),
  }));

  const comments: Prisma.CommentCreateManyInput[] = [
    { id: 'cmt-001', postId: 'pst-01-welcome', authorName: 'Liam Nguyen', body: 'Excited to get started!', status: 'visible', days: 370 },
    { id: 'cmt-002', postId: 'pst-01-welcome', authorName: 'Sofia Rossi', body: 'Are certificates included?', status: 'visible', days: 360 },
    { id: 'cmt-003', postId: 'pst-02-typescript-tips', authorName: 'Noah Schmidt', body: 'Tip 3 saved me hours, thanks.', status: 'visible', days: 140 },
    { id: 'cmt-004', postId: 'pst-02-typescript-tips', authorName: 'spam-bot', body: 'Buy cheap followers at …', status: 'hidden', days: 139 },
    { id: 'cmt-005', postId: 'pst-03-new-security-course', authorName: 'Aisha Khan', body: 'Will it cover passkeys?', status: 'visible', days: 55 },
    { id: 'cmt-006', postId: 'pst-04-roadmap', authorName: 'Alex Rivera', body: 'Internal note: add the data course.', status: 'visible', days: 4 },
  ].map(({ days, ...comment }) => ({ ...comment, schoolId, createdAt: ago(days) }));

  const events: Prisma.EventCreateManyInput[] = [
    { id: 'evt-01-typescript-qa', title: 'Live Q&A: TypeScript Fundamentals', description: 'Bring your questions about the course.', onlineUrl: 'https://meet.example/ts-qa', location: null, startsAt: ago(-14, 17 * 60), endsAt: ago(-14, 18 * 60), isPublic: true, capacity: 200 },
    { id: 'evt-02-security-workshop', title: 'Hands-on security workshop', description: 'Three hours of breaking and fixing a demo app.', onlineUrl: null, location: 'Berlin, Factory Görlitzer Park', startsAt: ago(-40, 10 * 60), endsAt: ago(-40, 13 * 60), isPublic: true, capacity: 30 },
    { id: 'evt-03-team-planning', title: 'Team planning (staff only)', description: 'Quarterly planning of the course catalogue.', onlineUrl: 'https://meet.example/planning', location: null, startsAt: ago(-7, 9 * 60), endsAt: ago(-7, 11 * 60), isPublic: false, capacity: null },
    { id: 'evt-04-launch-party', title: 'Demo Academy launch party', description: 'Where it all began.', onlineUrl: null, location: 'Online', startsAt: ago(390, 18 * 60), endsAt: ago(390, 20 * 60), isPublic: true, capacity: null },
  ].map((event) => ({ ...event, schoolId, createdAt: ago(400), updatedAt: ago(30) }));

  const pages: Prisma.PageCreateManyInput[] = [
    { id: 'pag-about', title: 'About us', slug: 'about', body: 'Demo Academy teaches practical software engineering, online and self-paced.', published: true },
    { id: 'pag-faq', title: 'Frequently asked questions', slug: 'faq', body: '**Do I get a certificate?** Yes, for every completed course.\n\n**Can I get a refund?** Within 14 days.', published: true },
    { id: 'pag-new-landing', title: 'New landing page', slug: 'new-landing', body: 'Draft of the redesigned landing page.', published: false },
    { id: 'pag-terms', title: 'Terms of service', slug: 'terms', body: 'These are demo terms. Nothing here is binding.', published: true },
  ].map((page) => ({ ...page, schoolId, publishedAt: page.published ? ago(300) : null, createdAt: ago(310), updatedAt: ago(300) }));

  const forms: Prisma.FormCreateManyInput[] = [
    {
      id: 'frm-contact',
      title: 'Contact us',
      description: 'The contact form on the website.',
      fields: [
        { name: 'name', label: 'Your name', type: 'text', required: true },
        { name: 'email', label: 'Email', type: 'email', required: true },
        { name: 'message', label: 'Message', type: 'textarea', required: true },
      ],
    },
    {
      id: 'frm-course-feedback',
      title: 'Course feedback',
      description: 'Sent to students when they complete a course.',
      fields: [
        { name: 'course', label: 'Course', type: 'select', required: true, options: published.map((course) => course.title) },
        { name: 'rating', label: 'Rating (1-5)', type: 'number', required: true },
        { name: 'recommend', label: 'Would you recommend it?', type: 'checkbox', required: false },
        { name: 'comments', label: 'Comments', type: 'textarea', required: false },
      ],
    },
  ].map((form) => ({ ...form, schoolId, createdAt: ago(330), updatedAt: ago(330) }));

  const formSubmissions: Prisma.FormSubmissionCreateManyInput[] = [
    { formId: 'frm-contact', submitterEmail: 'curious@visitors.test', answers: { name: 'Pat Visitor', email: 'curious@visitors.test', message: 'Do you offer team licences?' }, days: 90 },
    { formId: 'frm-contact', submitterEmail: 'hr@company.test', answers: { name: 'Jordan Lee', email: 'hr@company.test', message: 'We would like invoices for 12 seats.' }, days: 61 },
    { formId: 'frm-contact', submitterEmail: 'noah.schmidt@students.test', answers: { name: 'Noah Schmidt', email: 'noah.schmidt@students.test', message: 'My certificate has a typo.' }, days: 33 },
    { formId: 'frm-contact', submitterEmail: 'press@news.test', answers: { name: 'Riley Press', email: 'press@news.test', message: 'Interview request about online learning.' }, days: 10 },
    { formId: 'frm-contact', submitterEmail: 'someone@visitors.test', answers: { name: 'Casey', email: 'someone@visitors.test', message: 'Is there a student discount?' }, days: 2 },
    { formId: 'frm-course-feedback', submitterEmail: 'liam.nguyen@students.test', answers: { course: 'TypeScript Fundamentals', rating: 5, recommend: true, comments: 'Clear and practical.' }, days: 120 },
    { formId: 'frm-course-feedback', submitterEmail: 'sofia.rossi@students.test', answers: { course: 'NestJS in Practice', rating: 4, recommend: true, comments: 'More on testing, please.' }, days: 80 },
    { formId: 'frm-course-feedback', submitterEmail: 'aisha.khan@students.test', answers: { course: 'PostgreSQL for Developers', rating: 5, recommend: true }, days: 41 },
    { formId: 'frm-course-feedback', submitterEmail: 'mateo.garcia@students.test', answers: { course: 'Web Security Essentials', rating: 3, recommend: false, comments: 'Too fast in the OAuth part.' }, days: 7 },
  ].map(({ days, ...submission }, i) => ({ ...submission, id: `sbm-${pad(i + 1)}`, schoolId, submittedAt: ago(days) }));

  return {
    school: {
      id: schoolId,
      name: 'Demo Academy',
      slug: 'demo-academy',
      description: 'Practical software engineering courses: TypeScript, NestJS, PostgreSQL and web security.',
      contactEmail: 'hello@academy.test',
      websiteUrl: null,
      timezone: 'America/New_York',
      currency,
      locale: 'en',
      settings: { allow_self_enrollment: true, certificates_enabled: true, refund_window_days: 14, support_hours: 'Mon-Fri 9:00-17:00' },
      createdAt: created,
    },
    appearance: {
      schoolId,
      primaryColor: '#4f46e5',
      accentColor: '#f97316',
      backgroundColor: '#ffffff',
      textColor: '#0f172a',
      fontFamily: 'Inter',
      logoUrl: null,
      faviconUrl: null,
    },
    lecturers,
    courses,
    sections,
    lessons,
    students,
    enrollments,
    members,
    coupons,
    orders,
    orderItems,
    posts,
    comments,
    events,
    membershipPlans,
    subscriptions,
    digitalProducts,
    pages,
    forms,
    formSubmissions,
  };
}

/** Order ids and numbers follow placed_at, so the id-ordered list reads chronologically. */
function renumberInTimeOrder(orders: Prisma.OrderCreateManyInput[], items: Prisma.OrderItemCreateManyInput[], prefix: string): void {
  const byOldId = new Map(items.map((item) => [item.orderId, item]));
  orders.sort((a, b) => new Date(a.placedAt).getTime() - new Date(b.placedAt).getTime());
  items.length = 0;
  orders.forEach((order, i) => {
    const item = byOldId.get(order.id as string) as Prisma.OrderItemCreateManyInput;
    const id = `ord-${pad(i + 1, 4)}`;
    order.id = id;
    order.number = `${prefix}${1001 + i}`;
    items.push({ ...item, id: `itm-${pad(i + 1, 4)}-1`, orderId: id });
  });
}

const NORTHWIND_COURSES: CourseOutline[] = [
  {
    id: 'crs-nw-data-analysis',
    title: 'Data Analysis with Python',
    slug: 'data-analysis-with-python',
    summary: 'pandas, plots and a dose of statistics.',
    level: 'beginner',
    priceCents: 5900,
    lecturerId: 'lec-nw-priya-raman',
    published: true,
    sections: [{ title: 'First steps', lessons: [['Notebooks', 'video', 12], ['DataFrames', 'video', 18]] }],
  },
  {
    id: 'crs-nw-machine-learning',
    title: 'Machine Learning Basics',
    slug: 'machine-learning-basics',
    summary: 'Regression, classification and honest evaluation. (Draft.)',
    level: 'intermediate',
    priceCents: 9900,
    lecturerId: 'lec-nw-priya-raman',
    published: false,
    sections: [{ title: 'Supervised learning', lessons: [['Linear regression', 'video', 20]] }],
  },
];

export function northwindInstitute(now: Date): TenantSeed {
  const schoolId = OTHER_SCHOOL_ID;
  const currency = 'GBP';
  const ago = (days: number) => new Date(now.getTime() - days * DAY);
  const created = ago(200);
  const { sections, lessons } = curriculum(schoolId, NORTHWIND_COURSES, now);
  const students: StudentRow[] = [
    { id: 'stu-nw-001', name: 'Harriet Lane', email: 'harriet.lane@northwind.test' },
    { id: 'stu-nw-002', name: 'Ibrahim Said', email: 'ibrahim.said@northwind.test' },
    { id: 'stu-nw-003', name: 'Wen Li', email: 'wen.li@northwind.test' },
  ].map((student) => ({ ...student, schoolId, createdAt: created, updatedAt: created }));
  const orders: Prisma.OrderCreateManyInput[] = students.map((student, i) => ({
    id: `ord-nw-${pad(i + 1, 4)}`,
    schoolId,
    number: `NW-${501 + i}`,
    studentId: student.id,
    customerEmail: student.email,
    status: 'paid',
    currency,
    subtotalCents: 5900,
    discountCents: 0,
    totalCents: 5900,
    couponCode: null,
    placedAt: ago(90 - i * 30),
    paidAt: ago(90 - i * 30),
  }));
  return {
    school: {
      id: schoolId,
      name: 'Northwind Institute',
      slug: 'northwind-institute',
      description: 'Data science for working professionals.',
      contactEmail: 'info@northwind.test',
      websiteUrl: null,
      timezone: 'Europe/London',
      currency,
      locale: 'en-GB',
      settings: { allow_self_enrollment: false },
      createdAt: created,
    },
    appearance: { schoolId, primaryColor: '#0f766e', accentColor: '#eab308', fontFamily: 'Source Sans 3' },
    lecturers: [{ id: 'lec-nw-priya-raman', schoolId, name: 'Priya Raman', headline: 'Data scientist', bio: 'Priya teaches data science to engineers.', createdAt: created, updatedAt: created }],
    courses: courseRows(schoolId, currency, NORTHWIND_COURSES, now),
    sections,
    lessons,
    students,
    enrollments: students.map((student, i) => ({
      id: `enr-nw-${pad(i + 1, 4)}`,
      schoolId,
      studentId: student.id,
      courseId: 'crs-nw-data-analysis',
      enrolledAt: ago(90 - i * 30),
      progressPercent: 40 + i * 20,
    })),
    members: [
      { id: 'mem-nw-01-owner', schoolId, userId: OTHER_OWNER_USER_ID, name: 'Olly Other', email: 'other@academy.test', role: 'owner', title: 'Director', createdAt: created, updatedAt: created },
    ],
    coupons: [{ id: 'cpn-nw-autumn', schoolId, code: 'AUTUMN15', percentOff: 15, active: true, createdAt: created, updatedAt: created }],
    orders,
    orderItems: orders.map((order) => ({
      id: `itm-nw-${(order.id as string).slice(-4)}-1`,
      schoolId,
      orderId: order.id as string,
      productType: 'course',
      productId: 'crs-nw-data-analysis',
      courseId: 'crs-nw-data-analysis',
      title: 'Data Analysis with Python',
      quantity: 1,
      unitPriceCents: 5900,
      totalCents: 5900,
    })),
    posts: [
      { id: 'pst-nw-01-hello', schoolId, title: 'Hello from Northwind', slug: 'hello', excerpt: 'We are open.', body: 'Northwind Institute is open for enrolment.', authorName: 'Olly Other', published: true, publishedAt: ago(150), createdAt: ago(150), updatedAt: ago(150) },
      { id: 'pst-nw-02-draft', schoolId, title: 'Internal draft', slug: 'internal-draft', excerpt: '', body: 'Not for publication.', authorName: 'Olly Other', published: false, publishedAt: null, createdAt: ago(3), updatedAt: ago(3) },
    ],
    comments: [{ id: 'cmt-nw-001', schoolId, postId: 'pst-nw-01-hello', authorName: 'Wen Li', body: 'Looking forward to it.', status: 'visible', createdAt: ago(140) }],
    events: [
      { id: 'evt-nw-01-open-day', schoolId, title: 'Open day', description: 'Meet the teachers.', location: 'London', startsAt: ago(-20), isPublic: true, createdAt: created, updatedAt: created },
      { id: 'evt-nw-02-board', schoolId, title: 'Board meeting', description: 'Private.', location: 'London', startsAt: ago(-10), isPublic: false, createdAt: created, updatedAt: created },
    ],
    membershipPlans: [
      { id: 'pln-nw-monthly', schoolId, name: 'Northwind Monthly', description: 'All courses.', priceCents: 1900, currency, interval: 'month', features: ['All courses'], active: true, createdAt: created, updatedAt: created },
    ],
    subscriptions: [
      { id: 'sub-nw-001', schoolId, planId: 'pln-nw-monthly', studentId: 'stu-nw-001', status: 'active', startedAt: ago(60), currentPeriodEnd: ago(-30), createdAt: ago(60), updatedAt: ago(60) },
    ],
    digitalProducts: [
      { id: 'dpr-nw-pandas-guide', schoolId, title: 'pandas Pocket Guide', description: 'A printable guide.', priceCents: 700, currency, kind: 'ebook', published: true, createdAt: created, updatedAt: created },
    ],
    pages: [
      { id: 'pag-nw-about', schoolId, title: 'About Northwind', slug: 'about', body: 'Data science for working professionals.', published: true, publishedAt: created, createdAt: created, updatedAt: created },
    ],
    forms: [
      { id: 'frm-nw-enquiry', schoolId, title: 'Enquiry', description: 'Course enquiries.', fields: [{ name: 'email', label: 'Email', type: 'email', required: true }], createdAt: created, updatedAt: created },
    ],
    formSubmissions: [{ id: 'sbm-nw-001', schoolId, formId: 'frm-nw-enquiry', answers: { email: 'someone@northwind.test' }, submitterEmail: 'someone@northwind.test', submittedAt: ago(12) }],
  };
}

export function demoTenants(now: Date): TenantSeed[] {
  return [demoAcademy(now), northwindInstitute(now)];
}
