import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { BUSINESS_SCOPES } from '@platform/scopes';
// Test-only: the real authorization server issues the tokens and answers introspection.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startTestAuthServer, type TestAuthServer } from '../../auth-server/test/support/test-auth-server';
import { startTestResourceServer, type TestResourceServer } from './support/test-resource-server';
import { mintAccessToken } from './support/tokens';

/**
 * The API over HTTP with real tokens: the real authorization server issues them and answers
 * the resource server's introspection. Focused on the API's own behaviour; the lead's
 * cross-service e2e drives the OAuth flows themselves.
 */
describe('the API with real access tokens', () => {
  let auth: TestAuthServer;
  let resource: TestResourceServer;
  let app: NestFastifyApplication;
  const tokens: Record<'demo' | 'other' | 'demoCoursesOnly', string> = { demo: '', other: '', demoCoursesOnly: '' };

  const call = async (
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'OPTIONS',
    url: string,
    options: { token?: string; json?: unknown; body?: Buffer | string; contentType?: string; headers?: Record<string, string> } = {},
  ) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers['authorization'] = `Bearer ${options.token}`;
    if (options.contentType) headers['content-type'] = options.contentType;
    const response = await app.inject({
      method,
      url,
      headers,
      ...(options.json !== undefined ? { payload: options.json as object } : options.body !== undefined ? { payload: options.body } : {}),
    });
    const text = response.body;
    let parsed: Record<string, unknown> | undefined;
    try {
      parsed = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.statusCode, headers: response.headers, body: parsed, raw: response.rawPayload };
  };

  beforeAll(async () => {
    auth = await startTestAuthServer();
    resource = await startTestResourceServer({ authServerUrl: auth.issuer, env: { UPLOAD_MAX_BYTES: '4096' } });
    app = resource.app;
    tokens.demo = await mintAccessToken(auth, { userId: 'demo-owner', schoolId: 'demo-school', scopes: BUSINESS_SCOPES });
    tokens.other = await mintAccessToken(auth, { userId: 'other-owner', schoolId: 'other-school', scopes: BUSINESS_SCOPES });
    tokens.demoCoursesOnly = await mintAccessToken(auth, { userId: 'demo-owner', schoolId: 'demo-school', scopes: ['courses:read'] });
  }, 180_000);

  afterAll(async () => {
    await resource?.close();
    await auth?.close();
  });

  describe('scopes', () => {
    it('shows a token holder the drafts too', async () => {
      const { status, body } = await call('GET', '/api/v1/courses?published=false', { token: tokens.demo });
      expect(status).toBe(200);
      expect((body?.['data'] as { id: string }[]).map((course) => course.id)).toEqual(['crs-advanced-typescript-patterns']);
    });

    it('answers 403 insufficient_scope for a token without the route’s scope', async () => {
      const { status, headers, body } = await call('GET', '/api/v1/students', { token: tokens.demoCoursesOnly });
      expect(status).toBe(403);
      expect(body).toMatchObject({ error: 'insufficient_scope' });
      expect(headers['www-authenticate']).toContain('scope="students:read"');
    });

    it('needs the write scope to change what the read scope shows', async () => {
      const { status } = await call('PATCH', '/api/v1/courses/crs-typescript-fundamentals', { token: tokens.demoCoursesOnly, json: { title: 'x' } });
      expect(status).toBe(403);
    });

    it('answers 401 invalid_token for a token the authorization server does not know', async () => {
      const { status, headers } = await call('GET', '/api/v1/courses', { token: 'x'.repeat(43) });
      expect(status).toBe(401);
      expect(headers['www-authenticate']).toMatch(/error="invalid_token"/);
    });

    it('lets the owner read their own account', async () => {
      const { status, body } = await call('GET', '/api/v1/account', { token: tokens.demo });
      expect(status).toBe(200);
      expect(body).toMatchObject({ user_id: 'demo-owner', role: 'owner', email: 'demo@academy.test' });
    });
  });

  describe('tenant isolation over HTTP', () => {
    it.each([
      ['GET', '/api/v1/courses/crs-typescript-fundamentals'],
      ['GET', '/api/v1/students/stu-001'],
      ['GET', '/api/v1/orders/ord-0001'],
      ['GET', '/api/v1/courses?school=demo-school'],
      ['GET', '/api/v1/school?school=demo-school'],
      ['PATCH', '/api/v1/courses/crs-typescript-fundamentals'],
      ['PATCH', '/api/v1/members/mem-01-owner'],
      ['DELETE', '/api/v1/posts/pst-01-welcome'],
      ['DELETE', '/api/v1/students/stu-001'],
    ] as const)('other-school’s token gets 404 for %s %s', async (method, url) => {
      const json = method === 'PATCH' ? (url.includes('members') ? { role: 'support' } : { title: 'Hijacked' }) : undefined;
      const { status, body } = await call(method, url, { token: tokens.other, json });
      expect(status).toBe(404);
      expect(body).toMatchObject({ error: 'not_found' });
    });

    it('other-school’s token sees its own school only', async () => {
      const { body } = await call('GET', '/api/v1/students', { token: tokens.other });
      expect((body?.['data'] as { id: string }[]).map((student) => student.id)).toEqual(['stu-nw-001', 'stu-nw-002', 'stu-nw-003']);
      const school = await call('GET', '/api/v1/school', { token: tokens.other });
      expect(school.body).toMatchObject({ id: 'other-school', settings: { allow_self_enrollment: false } });
    });

    it('a body cannot name another school', async () => {
      const { status, body } = await call('POST', '/api/v1/courses', { token: tokens.other, json: { title: 'Sneaky', price_cents: 0, school_id: 'demo-school' } });
      expect(status).toBe(400);
      expect(body?.['error_description']).toMatch(/school_id/);
    });

    it('demo items are unchanged after the attempts', async () => {
      const course = await call('GET', '/api/v1/courses/crs-typescript-fundamentals', { token: tokens.demo });
      expect(course.body).toMatchObject({ title: 'TypeScript Fundamentals' });
      expect((await call('GET', '/api/v1/students/stu-001', { token: tokens.demo })).status).toBe(200);
      expect((await call('GET', '/api/v1/posts/pst-01-welcome', { token: tokens.demo })).status).toBe(200);
    });
  });

  describe('requests', () => {
    it('creates, changes and deletes through the API with the write scope', async () => {
      const created = await call('POST', '/api/v1/events', {
        token: tokens.demo,
        json: { title: 'Office hours', starts_at: '2027-01-10T15:00:00+01:00', is_public: true },
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ title: 'Office hours', starts_at: '2027-01-10T14:00:00.000Z', is_public: true });
      const id = created.body?.['id'] as string;
      expect((await call('GET', `/api/v1/events/${id}`)).status).toBe(200);
      const changed = await call('PATCH', `/api/v1/events/${id}`, { token: tokens.demo, json: { is_public: false } });
      expect(changed.body).toMatchObject({ is_public: false });
      expect((await call('GET', `/api/v1/events/${id}`)).status).toBe(404);
      expect((await call('DELETE', `/api/v1/events/${id}`, { token: tokens.demo })).status).toBe(204);
      expect((await call('GET', `/api/v1/events/${id}`, { token: tokens.demo })).status).toBe(404);
    });

    it.each([
      ['a field of the wrong type', { title: 'X', price_cents: 'free' }, /^price_cents: /],
      ['a missing field', { price_cents: 100 }, /^title: /],
      ['an unknown field', { title: 'X', price_cents: 1, colour: 'red' }, /colour/],
    ])('answers 400 invalid_request naming the field for %s', async (_name, json, description) => {
      const { status, body } = await call('POST', '/api/v1/courses', { token: tokens.demo, json });
      expect(status).toBe(400);
      expect(body?.['error']).toBe('invalid_request');
      expect(body?.['error_description']).toMatch(description);
    });

    it('answers 400 for a body that is not JSON', async () => {
      const { status, body } = await call('POST', '/api/v1/courses', { token: tokens.demo, body: '{"title":', contentType: 'application/json' });
      expect(status).toBe(400);
      expect(body?.['error']).toBe('invalid_request');
    });

    it('answers 415 for a body type the route does not take', async () => {
      const { status } = await call('POST', '/api/v1/courses', { token: tokens.demo, body: 'title=X', contentType: 'text/plain' });
      expect(status).toBe(415);
    });

    it('pages with limit and cursor over HTTP', async () => {
      const first = await call('GET', '/api/v1/orders?limit=10', { token: tokens.demo });
      const cursor = first.body?.['next_cursor'] as string;
      expect(typeof cursor).toBe('string');
      const second = await call('GET', `/api/v1/orders?limit=10&cursor=${encodeURIComponent(cursor)}`, { token: tokens.demo });
      const ids = [...(first.body?.['data'] as { id: string }[]), ...(second.body?.['data'] as { id: string }[])].map((order) => order.id);
      expect(ids).toEqual(Array.from({ length: 20 }, (_, i) => `ord-${String(i + 1).padStart(4, '0')}`));
    });

    it('serves the analytics', async () => {
      const { status, body } = await call('GET', '/api/v1/analytics/revenue?interval=month', { token: tokens.demo });
      expect(status).toBe(200);
      expect(body).toMatchObject({ currency: 'USD', timezone: 'America/New_York', interval: 'month' });
      expect((await call('GET', '/api/v1/analytics/top-courses?by=enrollments&limit=2', { token: tokens.demo })).status).toBe(200);
      expect((await call('GET', '/api/v1/analytics/enrollments?interval=week', { token: tokens.demo })).status).toBe(400);
    });
  });

  describe('storage', () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 7)]);

    it('stores an upload and serves it to whoever holds the URL', async () => {
      const uploaded = await call('POST', '/api/v1/storage/files?filename=logo%20%C3%BC.png', { token: tokens.demo, body: png, contentType: 'image/png' });
      expect(uploaded.status).toBe(201);
      expect(uploaded.body).toMatchObject({ content_type: 'image/png', size: png.length, filename: 'logo ü.png' });
      const url = new URL(uploaded.body?.['url'] as string);
      expect(url.origin).toBe(auth.issuer);
      expect(url.pathname).toMatch(/^\/api\/v1\/storage\/files\/[A-Za-z0-9_-]{24}$/);

      const served = await call('GET', url.pathname);
      expect(served.status).toBe(200);
      expect(served.raw.equals(png)).toBe(true);
      expect(served.headers).toMatchObject({
        'content-type': 'image/png',
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'; sandbox",
      });
      expect(served.headers['content-disposition']).toBe(`inline; filename="logo _.png"; filename*=UTF-8''logo%20%C3%BC.png`);

      const product = await call('PATCH', '/api/v1/digital-products/dpr-nestjs-starter', { token: tokens.demo, json: { file_id: uploaded.body?.['id'] } });
      expect(product.body).toMatchObject({ file_id: uploaded.body?.['id'] });
      const borrowed = await call('PATCH', '/api/v1/digital-products/dpr-nw-pandas-guide', { token: tokens.other, json: { file_id: uploaded.body?.['id'] } });
      expect(borrowed.status).toBe(400);
    });

    it.each([
      ['no token', { body: png, contentType: 'image/png' }, 401],
      ['a token without storage:write', { token: 'coursesOnly', body: png, contentType: 'image/png' }, 403],
      ['a type outside the allow-list', { token: 'demo', body: '<script>alert(1)</script>', contentType: 'text/html' }, 415],
      ['JSON', { token: 'demo', body: '{"a":1}', contentType: 'application/json' }, 415],
      ['content that does not match its type', { token: 'demo', body: '<html></html>', contentType: 'image/png' }, 400],
      ['a file over UPLOAD_MAX_BYTES', { token: 'demo', body: Buffer.concat([png, Buffer.alloc(5000)]), contentType: 'image/png' }, 413],
      ['an empty file', { token: 'demo', body: '', contentType: 'text/plain' }, 400],
    ] as const)('refuses an upload with %s', async (_name, options, status) => {
      const token = 'token' in options ? (options.token === 'demo' ? tokens.demo : tokens.demoCoursesOnly) : undefined;
      const response = await call('POST', '/api/v1/storage/files', { token, body: options.body, contentType: options.contentType });
      expect(response.status).toBe(status);
    });

    it('answers 404 for a file id nobody was given', async () => {
      expect((await call('GET', '/api/v1/storage/files/AAAAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404);
    });
  });

  describe('CORS', () => {
    it('answers a preflight from any origin, without credentials', async () => {
      const { status, headers } = await call('OPTIONS', '/api/v1/courses', {
        headers: { origin: 'https://app.example', 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'authorization,content-type' },
      });
      expect(status).toBe(204);
      expect(headers['access-control-allow-origin']).toBe('*');
      expect(headers['access-control-allow-credentials']).toBeUndefined();
      expect(String(headers['access-control-allow-headers']).toLowerCase().split(/,\s*/)).toEqual(['authorization', 'content-type', 'dpop']);
      expect(String(headers['access-control-allow-methods'])).toContain('PATCH');
    });

    it('lets browser code read the challenge of a 401', async () => {
      const { status, headers } = await call('POST', '/api/v1/students', { headers: { origin: 'https://app.example' } });
      expect(status).toBe(401);
      expect(headers['access-control-allow-origin']).toBe('*');
      expect(headers['access-control-expose-headers']).toBe('WWW-Authenticate, DPoP-Nonce');
    });
  });
});
