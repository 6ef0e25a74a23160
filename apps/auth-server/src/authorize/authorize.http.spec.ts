/**
 * The authorization endpoint through HTTP (Fastify inject) on a real, migrated database:
 * login, consent, CSRF, session renewal, and what the approval stores. The full life cycle
 * with a standard OAuth client is in test/oauth-lifecycle.e2e.spec.ts.
 */
import { Global, Module } from '@nestjs/common';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { DEFAULT_OPERATIONS } from '@platform/operations-config';
import { EVENT_BUS, LocalEventBus } from '@platform/event-bus';
import { createHash } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../../../../tools/test-support/test-database';
import { AccountsModule } from '../accounts/accounts.module';
import { DemoSeeder } from '../accounts/demo-seeder';
import { AUTH_CONFIG, type AuthConfig } from '../config/auth-config';
import { loadLimitsConfig } from '../config/limits-config';
import { loadSecurityEventsConfig } from '../config/security-events-config';
import { hashToken } from '../crypto/tokens';
import { DatabaseModule } from '../database/database.module';
import { RevocationTrust } from '../events/revocation-trust';
import { PrismaService } from '../database/prisma.service';
import { AuthorizeModule } from './authorize.module';
import { registerAuthorizePlugins } from './plugins';
import { ClientAuthModule } from '../client-auth/client-auth.module';
import { ClientMetadataDocumentsModule, loadCimdConfig } from '../client-metadata-documents';

jest.setTimeout(60_000);

const ISSUER = 'http://127.0.0.1:3999';
const REDIRECT = 'http://127.0.0.1:8765/callback';
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');
const CLIENT_ID = 'client-http-spec';
/** Another application, with its own redirect URI and PKCE pair (issue 33's client B). */
const CLIENT_B = { id: 'client-b-http-spec', redirectUri: 'http://127.0.0.1:9876/b-callback', challenge: createHash('sha256').update('b'.repeat(43)).digest('base64url') };
const CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http://127.0.0.1:* http://localhost:* http://[::1]:*; frame-ancestors 'none'; base-uri 'none'";

let database: TestDatabase;
let app: NestFastifyApplication;
let prisma: PrismaService;

function configFor(url: string, poolSize: number): AuthConfig {
  return {
    env: 'test',
    host: '127.0.0.1',
    port: 0,
    issuer: ISSUER,
    apiResource: ISSUER,
    branding: { resourceServerUrl: 'http://127.0.0.1:9', defaultSchoolId: 'demo-school' },
    database: { url, poolSize },
    signingKeys: {},
    introspectionClient: { id: 'resource-server', secret: 'x'.repeat(32) },
    ttl: { accessToken: 3600, refreshToken: 86400, authorizationCode: 60, session: 3600, refreshReuseGrace: 30 },
    embedded: false,
    seedDemoData: true,
    secureCookies: false,
    operations: DEFAULT_OPERATIONS,
    limits: loadLimitsConfig({ RATE_LIMITS_ENABLED: 'false', MAINTENANCE_ENABLED: 'false' }),
    cimd: loadCimdConfig({}),
    dpop: { proofMaxAgeSeconds: 60 },
    securityEvents: loadSecurityEventsConfig({ SECURITY_EVENTS_RELAY_ENABLED: 'false' }, 'http://127.0.0.1:9'),
  };
}

beforeAll(async () => {
  database = await createTestDatabase('auth');
  const config = configFor(database.url, database.poolSize);

  @Global()
  // What the app's RuntimeModule provides to every module: the configuration, the event bus and its trust judge.
  @Module({
    providers: [{ provide: AUTH_CONFIG, useValue: config }, { provide: EVENT_BUS, useValue: new LocalEventBus() }, RevocationTrust],
    exports: [AUTH_CONFIG, EVENT_BUS, RevocationTrust],
  })
  class TestConfigModule {}

  const moduleRef = await Test.createTestingModule({
    imports: [TestConfigModule, DatabaseModule, ClientAuthModule, ClientMetadataDocumentsModule.register(config.cimd), AccountsModule, AuthorizeModule],
  }).compile();
  app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
  // What bootstrap does: the plugins before init, and no form-body plugin (Nest adds its own parser).
  await registerAuthorizePlugins(app.getHttpAdapter().getInstance());
  await app.init();
  await app.getHttpAdapter().getInstance().ready();

  prisma = app.get(PrismaService);
  await app.get(DemoSeeder).seed();
  await prisma.client.create({
    data: {
      id: CLIENT_ID,
      name: 'Lesson <Planner> CLI',
      applicationType: 'native',
      redirectUris: [REDIRECT],
      tokenEndpointAuthMethod: 'none',
      grantTypes: ['authorization_code', 'refresh_token'],
      responseTypes: ['code'],
      scope: 'openid profile email students:read courses:read',
    },
  });
  await prisma.client.create({
    data: {
      id: CLIENT_B.id,
      name: 'Other App',
      applicationType: 'native',
      redirectUris: [CLIENT_B.redirectUri],
      tokenEndpointAuthMethod: 'none',
      grantTypes: ['authorization_code', 'refresh_token'],
      responseTypes: ['code'],
      scope: 'openid students:read',
    },
  });
});

afterAll(async () => {
  await app?.close();
  await database?.drop();
});

// Every test starts with nothing remembered: each approval would otherwise answer for the next
// test's request (the remembered consent has its own tests below).
beforeEach(async () => {
  await prisma.consent.deleteMany();
});

/** A browser: a cookie jar over inject(). */
class Browser {
  readonly cookies = new Map<string, string>();

  constructor(
    /** The User-Agent this browser sends. */
    readonly userAgent = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
    /** The address the request comes from (what a trusted proxy would have resolved). */
    readonly remoteAddress = '127.0.0.1',
  ) {}

  async request(method: 'GET' | 'POST', url: string, form?: Record<string, string> | URLSearchParams) {
    const response = await app.inject({
      method,
      url,
      remoteAddress: this.remoteAddress,
      headers: {
        'user-agent': this.userAgent,
        cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      payload: form ? new URLSearchParams(form).toString() : undefined,
    });
    for (const cookie of response.cookies as { name: string; value: string }[]) this.cookies.set(cookie.name, cookie.value);
    return response;
  }

  get(url: string) {
    return this.request('GET', url);
  }

  post(url: string, form: Record<string, string> | URLSearchParams) {
    return this.request('POST', url, form);
  }
}

function authorizeUrl(changes: Record<string, string | null> = {}): string {
  const params: Record<string, string | null> = {
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'openid students:read',
    state: 'state-abc',
    nonce: 'nonce-xyz',
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    ...changes,
  };
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== null) search.append(name, value);
  return `/oauth/authorize?${search.toString()}`;
}

/** The fields of the page's form, as a browser would submit them. */
function formFields(html: string): URLSearchParams {
  const form = new URLSearchParams();
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    form.append(match[1], decodeEntities(match[2]));
  }
  return form;
}

function decodeEntities(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

function withFields(form: URLSearchParams, fields: Record<string, string>): URLSearchParams {
  const copy = new URLSearchParams(form);
  for (const [name, value] of Object.entries(fields)) copy.set(name, value);
  return copy;
}

async function signIn(browser: Browser, url = authorizeUrl()) {
  const login = await browser.get(url);
  expect(login.statusCode).toBe(200);
  const afterLogin = await browser.post(
    '/oauth/authorize/login',
    withFields(formFields(login.body), { email: 'demo@academy.test', password: 'demo-password' }),
  );
  expect(afterLogin.statusCode).toBe(303);
  const consent = await browser.get(afterLogin.headers.location as string);
  expect(consent.statusCode).toBe(200);
  return consent;
}

function expectPageHeaders(response: { headers: Record<string, unknown> }) {
  expect(response.headers['content-security-policy']).toBe(CSP);
  expect(response.headers['x-frame-options']).toBe('DENY');
  expect(response.headers['cache-control']).toBe('no-store');
  expect(response.headers['referrer-policy']).toBe('no-referrer');
}

describe('the login page', () => {
  it('is shown without a session, with the security headers and a CSRF cookie', async () => {
    const browser = new Browser();
    const response = await browser.get(authorizeUrl());
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expectPageHeaders(response);
    expect(response.body).toContain('<h1>Sign in</h1>');
    expect(response.body).toContain('Lesson &lt;Planner&gt; CLI');
    expect(browser.cookies.has('csrf')).toBe(true);
  });

  it('refuses a login without a valid CSRF token (403) and signs no one in', async () => {
    const browser = new Browser();
    const login = await browser.get(authorizeUrl());
    const fields = withFields(formFields(login.body), { email: 'demo@academy.test', password: 'demo-password' });
    fields.set('_csrf', 'forged.token');
    const response = await browser.post('/oauth/authorize/login', fields);
    expect(response.statusCode).toBe(403);
    expect(response.body).toContain('Your sign-in form expired');
    expect(browser.cookies.has('session')).toBe(false);
  });

  it('says the same thing, 401, for a wrong password and for an unknown email', async () => {
    const browser = new Browser();
    const login = await browser.get(authorizeUrl());
    const fields = formFields(login.body);
    const wrongPassword = await browser.post('/oauth/authorize/login', withFields(fields, { email: 'demo@academy.test', password: 'nope' }));
    const unknownEmail = await browser.post('/oauth/authorize/login', withFields(fields, { email: 'ghost@academy.test', password: 'nope' }));
    for (const response of [wrongPassword, unknownEmail]) {
      expect(response.statusCode).toBe(401);
      expect(response.body).toContain('Email or password is incorrect.');
      expectPageHeaders(response);
    }
    expect(browser.cookies.has('session')).toBe(false);
  });

  it('on success renews the session (fixation) and returns to the same authorization request', async () => {
    const browser = new Browser();
    const planted = 'A'.repeat(43);
    browser.cookies.set('session', planted);
    const login = await browser.get(authorizeUrl());
    const response = await browser.post(
      '/oauth/authorize/login',
      withFields(formFields(login.body), { email: ' Demo@Academy.TEST ', password: 'demo-password' }),
    );
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(authorizeUrl());
    const setCookie = ([] as string[]).concat(response.headers['set-cookie'] as string | string[]);
    const sessionCookie = setCookie.find((c) => c.startsWith('session=')) as string;
    expect(sessionCookie).toMatch(/; Max-Age=3600; Path=\/; HttpOnly; SameSite=Lax$/);
    const value = browser.cookies.get('session') as string;
    expect(value).not.toBe(planted);
    // Only the hash is stored.
    expect(await prisma.session.count({ where: { tokenHash: value } })).toBe(0);
    expect(await prisma.session.count({ where: { tokenHash: hashToken(value) } })).toBe(1);
  });

  it('a second login from the same browser replaces its session', async () => {
    const browser = new Browser();
    await signIn(browser);
    const first = browser.cookies.get('session') as string;
    await signIn(browser, authorizeUrl({ prompt: 'login' }));
    const second = browser.cookies.get('session') as string;
    expect(second).not.toBe(first);
    expect(await prisma.session.count({ where: { tokenHash: hashToken(first) } })).toBe(0);
  });
});

describe('the consent page', () => {
  it('names the client, the redirect host, the user, the school and each scope in words', async () => {
    const consent = await signIn(new Browser());
    expectPageHeaders(consent);
    for (const text of ['Lesson &lt;Planner&gt; CLI', '127.0.0.1:8765', 'Dana Demo', 'Demo Academy', 'Sign you in', 'See students and their enrollments']) {
      expect(consent.body).toContain(text);
    }
  });

  it('Approve stores a grant and a hashed code in one go, and redirects with code, state and iss', async () => {
    const browser = new Browser();
    const consent = await signIn(browser, authorizeUrl({ redirect_uri: 'http://127.0.0.1:50123/callback', resource: `${ISSUER}/mcp` }));
    const response = await browser.post('/oauth/authorize/consent', withFields(formFields(consent.body), { decision: 'approve' }));
    expect(response.statusCode).toBe(303);
    expectPageHeaders(response);
    const location = new URL(response.headers.location as string);
    expect(location.origin + location.pathname).toBe('http://127.0.0.1:50123/callback');
    const code = location.searchParams.get('code') as string;
    expect(location.searchParams.get('state')).toBe('state-abc');
    expect(location.searchParams.get('iss')).toBe(ISSUER);

    const stored = await prisma.authorizationCode.findUnique({ where: { codeHash: hashToken(code) }, include: { grant: true } });
    expect(stored).toMatchObject({
      redirectUri: 'http://127.0.0.1:50123/callback',
      codeChallenge: CHALLENGE,
      consumedAt: null,
      grant: { clientId: CLIENT_ID, schoolId: 'demo-school', scope: 'openid students:read', resource: ISSUER, nonce: 'nonce-xyz' },
    });
    const ttl = (stored?.expiresAt.getTime() ?? 0) - Date.now();
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    const session = await prisma.session.findUnique({ where: { tokenHash: hashToken(browser.cookies.get('session') as string) } });
    expect(stored?.grant.authTime).toEqual(session?.authTime);
    expect((await prisma.client.findUnique({ where: { id: CLIENT_ID } }))?.firstAuthorizedAt).toBeInstanceOf(Date);
  });

  it('Deny redirects with access_denied, state and iss', async () => {
    const browser = new Browser();
    const consent = await signIn(browser);
    const response = await browser.post('/oauth/authorize/consent', withFields(formFields(consent.body), { decision: 'deny' }));
    expect(response.statusCode).toBe(303);
    const location = new URL(response.headers.location as string);
    expect(Object.fromEntries(location.searchParams)).toEqual({
      error: 'access_denied',
      error_description: 'The user denied the request',
      state: 'state-abc',
      iss: ISSUER,
    });
  });

  it('re-validates the carried request: an unknown scope comes back as invalid_scope', async () => {
    const browser = new Browser();
    const consent = await signIn(browser);
    const fields = withFields(formFields(consent.body), { decision: 'approve', scope: 'openid admin:everything' });
    const response = await browser.post('/oauth/authorize/consent', fields);
    expect(response.statusCode).toBe(303);
    expect(new URL(response.headers.location as string).searchParams.get('error')).toBe('invalid_scope');
  });

  it('grants only the scope the page showed: a scope widened in the form is refused (403, the page again, no code)', async () => {
    const browser = new Browser();
    const consent = await signIn(browser);
    const fields = withFields(formFields(consent.body), { decision: 'approve', scope: 'openid students:write' });
    const response = await browser.post('/oauth/authorize/consent', fields);
    expect(response.statusCode).toBe(403);
    expect(response.headers.location).toBeUndefined();
    expect(response.body).toContain('This form expired or was not sent from this page');
  });

  it('re-validates the carried request: a swapped redirect_uri gets an error page, no redirect', async () => {
    const browser = new Browser();
    const consent = await signIn(browser);
    const fields = withFields(formFields(consent.body), { decision: 'approve', redirect_uri: 'http://evil.example/cb' });
    const response = await browser.post('/oauth/authorize/consent', fields);
    expect(response.statusCode).toBe(400);
    expect(response.headers.location).toBeUndefined();
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it('refuses an approval whose CSRF token belongs to another session (403)', async () => {
    const victim = new Browser();
    const attacker = new Browser();
    const attackerConsent = await signIn(attacker);
    await signIn(victim);
    const forged = withFields(formFields(attackerConsent.body), { decision: 'approve' });
    // Even with the attacker's CSRF cookie planted, the token names the attacker's session.
    victim.cookies.set('csrf', attacker.cookies.get('csrf') as string);
    const response = await victim.post('/oauth/authorize/consent', forged);
    expect(response.statusCode).toBe(403);
    expect(response.headers.location).toBeUndefined();
  });

  it('shows the login page again when the session has ended', async () => {
    const browser = new Browser();
    const consent = await signIn(browser);
    await prisma.session.updateMany({ data: { expiresAt: new Date(Date.now() - 1000) } });
    const response = await browser.post('/oauth/authorize/consent', withFields(formFields(consent.body), { decision: 'approve' }));
    expect(response.statusCode).toBe(401);
    expect(response.body).toContain('<h1>Sign in</h1>');
  });
});

describe('the consent form grants the request it showed, once', () => {
  const FORM_EXPIRED = 'This form expired or was not sent from this page';

  it("refuses client A's token with client B's client_id, redirect URI, PKCE challenge and state (403, the page again, no code for B)", async () => {
    const browser = new Browser();
    const consentOfA = await signIn(browser);
    const forged = withFields(formFields(consentOfA.body), {
      decision: 'approve',
      client_id: CLIENT_B.id,
      redirect_uri: CLIENT_B.redirectUri,
      code_challenge: CLIENT_B.challenge,
      state: 'state-of-b',
    });
    const response = await browser.post('/oauth/authorize/consent', forged);
    expect(response.statusCode).toBe(403);
    expect(response.headers.location).toBeUndefined();
    expect(response.body).toContain(FORM_EXPIRED);
    expect(await prisma.grant.count({ where: { clientId: CLIENT_B.id } })).toBe(0);
  });

  it.each<[string, Record<string, string>]>([
    ['another redirect URI (a loopback port the client may use)', { redirect_uri: 'http://127.0.0.1:50999/callback' }],
    ["another PKCE challenge (the attacker's verifier)", { code_challenge: CLIENT_B.challenge }],
    ['another state', { state: 'state-of-the-attacker' }],
    ['another nonce', { nonce: 'nonce-of-the-attacker' }],
  ])('refuses the token with %s (403, no code)', async (_name, change) => {
    const browser = new Browser();
    const consent = await signIn(browser);
    const grants = await prisma.grant.count();
    const response = await browser.post('/oauth/authorize/consent', withFields(formFields(consent.body), { decision: 'approve', ...change }));
    expect(response.statusCode).toBe(403);
    expect(response.headers.location).toBeUndefined();
    expect(await prisma.grant.count()).toBe(grants);
  });

  it('approves once: the same form sent again is refused (403, the page again) and no second code is stored', async () => {
    const browser = new Browser();
    const consent = await signIn(browser, authorizeUrl({ state: 'approve-once' }));
    const form = withFields(formFields(consent.body), { decision: 'approve' });
    const grants = await prisma.grant.count({ where: { clientId: CLIENT_ID } });

    const first = await browser.post('/oauth/authorize/consent', form);
    expect(first.statusCode).toBe(303);
    expect(new URL(first.headers.location as string).searchParams.get('code')).toEqual(expect.any(String));
    const again = await browser.post('/oauth/authorize/consent', form);
    expect(again.statusCode).toBe(403);
    expect(again.headers.location).toBeUndefined();
    expect(again.body).toContain(FORM_EXPIRED);
    expect(await prisma.grant.count({ where: { clientId: CLIENT_ID } })).toBe(grants + 1);

    // Consumed by the hash of the token's id only.
    const id = (form.get('_csrf') as string).split('.')[0];
    expect(await prisma.consumedConsentToken.count({ where: { idHash: hashToken(id) } })).toBe(1);
    expect(await prisma.consumedConsentToken.count({ where: { idHash: id } })).toBe(0);
  });

  it('a denial consumes the form: approving with it afterwards is refused', async () => {
    const browser = new Browser();
    const consent = await signIn(browser);
    const grants = await prisma.grant.count();
    const denied = await browser.post('/oauth/authorize/consent', withFields(formFields(consent.body), { decision: 'deny' }));
    expect(new URL(denied.headers.location as string).searchParams.get('error')).toBe('access_denied');
    const response = await browser.post('/oauth/authorize/consent', withFields(formFields(consent.body), { decision: 'approve' }));
    expect(response.statusCode).toBe(403);
    expect(await prisma.grant.count()).toBe(grants);
  });

  it('the page shown again carries a fresh token that approves', async () => {
    const browser = new Browser();
    const consent = await signIn(browser);
    const form = withFields(formFields(consent.body), { decision: 'approve' });
    await browser.post('/oauth/authorize/consent', form);
    const again = await browser.post('/oauth/authorize/consent', form);
    const response = await browser.post('/oauth/authorize/consent', withFields(formFields(again.body), { decision: 'approve' }));
    expect(response.statusCode).toBe(303);
    expect(new URL(response.headers.location as string).searchParams.get('code')).toEqual(expect.any(String));
  });
});

describe('remembered consent', () => {
  /** Signs in and approves `url` on the consent page: the code's redirect. */
  async function approve(browser: Browser, url: string): Promise<URL> {
    const consent = await signIn(browser, url);
    const response = await browser.post('/oauth/authorize/consent', withFields(formFields(consent.body), { decision: 'approve' }));
    expect(response.statusCode).toBe(303);
    return new URL(response.headers.location as string);
  }

  it('the same client asking again for what was approved gets its code without a page; the grant says so', async () => {
    const browser = new Browser(undefined, '198.51.100.23');
    const first = await approve(browser, authorizeUrl({ state: 'first' }));
    const again = await browser.get(authorizeUrl({ state: 'again', code_challenge: CLIENT_B.challenge }));
    expect(again.statusCode).toBe(303);
    expectPageHeaders(again);
    const location = new URL(again.headers.location as string);
    expect(location.origin + location.pathname).toBe(REDIRECT);
    expect(Object.fromEntries(location.searchParams)).toEqual({ code: expect.stringMatching(/^[\w-]{43}$/), state: 'again', iss: ISSUER });

    const codeOf = (url: URL) =>
      prisma.authorizationCode.findUniqueOrThrow({ where: { codeHash: hashToken(url.searchParams.get('code') as string) }, include: { grant: true } });
    expect(await codeOf(first)).toMatchObject({ grant: { approval: 'form' } });
    // Bound to the request it answers, like an approval on the page.
    expect(await codeOf(location)).toMatchObject({ codeChallenge: CLIENT_B.challenge, redirectUri: REDIRECT, grant: { approval: 'remembered', scope: 'openid students:read', nonce: 'nonce-xyz' } });
  });

  it('remembers the scope, the approving browser family and network, never the User-Agent or the address', async () => {
    const browser = new Browser(undefined, '198.51.100.23');
    await approve(browser, authorizeUrl());
    const [consent] = await prisma.consent.findMany({ where: { clientId: CLIENT_ID } });
    expect(consent).toMatchObject({ scope: 'openid students:read', device: 'Firefox on Linux', network: '198.51.100.0/24', lastUsedAt: null });
    expect(JSON.stringify(consent)).not.toContain('198.51.100.23');
    expect(JSON.stringify(consent)).not.toContain('Gecko');
    await browser.get(authorizeUrl());
    expect((await prisma.consent.findUniqueOrThrow({ where: { id: consent.id } })).lastUsedAt).toBeInstanceOf(Date);
  });

  it('a step-up asks only for what is new and mentions what was approved before', async () => {
    const browser = new Browser();
    await approve(browser, authorizeUrl());
    const stepUp = await browser.get(authorizeUrl({ scope: 'openid students:read orders:read' }));
    expect(stepUp.statusCode).toBe(200);
    expect(stepUp.body).toContain('will also be able to:');
    expect(stepUp.body).toContain('<code>orders:read</code>');
    expect(stepUp.body).not.toContain('<code>students:read</code>');
    expect(stepUp.body).toContain('You allowed this before, and are not asked again: Sign you in and know who you are; See students and their enrollments.');
    // The page's token still names the whole request: approving grants all of it.
    const approved = await browser.post('/oauth/authorize/consent', withFields(formFields(stepUp.body), { decision: 'approve' }));
    const code = new URL(approved.headers.location as string).searchParams.get('code') as string;
    expect(await prisma.authorizationCode.findUnique({ where: { codeHash: hashToken(code) }, include: { grant: true } })).toMatchObject({
      grant: { scope: 'openid students:read orders:read', approval: 'form' },
    });
  });

  it('prompt=none succeeds once everything asked was approved, and prompt=consent asks anyway', async () => {
    const browser = new Browser();
    await approve(browser, authorizeUrl());
    const silent = await browser.get(authorizeUrl({ prompt: 'none' }));
    expect(new URL(silent.headers.location as string).searchParams.get('code')).toEqual(expect.any(String));
    const more = await browser.get(authorizeUrl({ prompt: 'none', scope: 'openid orders:read' }));
    expect(new URL(more.headers.location as string).searchParams.get('error')).toBe('consent_required');
    const asked = await browser.get(authorizeUrl({ prompt: 'consent' }));
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toContain('<code>students:read</code>');
    expect(asked.body).not.toContain('You allowed this before');
  });

  it('is per user and client: another application is asked', async () => {
    const browser = new Browser();
    await approve(browser, authorizeUrl());
    const other = await browser.get(authorizeUrl({ client_id: CLIENT_B.id, redirect_uri: CLIENT_B.redirectUri, code_challenge: CLIENT_B.challenge }));
    expect(other.statusCode).toBe(200);
    expect(other.body).toContain('Other App wants to access your account');
  });
});

describe('max_age (OpenID Connect Core §3.1.2.1)', () => {
  it('asks for the password again when the sign-in is older than max_age, not when it is recent', async () => {
    const browser = new Browser();
    // Signing in with max_age=0 itself works: the sign-in has just happened.
    const consent = await signIn(browser, authorizeUrl({ max_age: '0' }));
    expect(consent.body).toContain('Approve');
    const session = hashToken(browser.cookies.get('session') as string);
    await prisma.session.update({ where: { tokenHash: session }, data: { authTime: new Date(Date.now() - 120_000) } });

    const stale = await browser.get(authorizeUrl({ max_age: '60' }));
    expect(stale.statusCode).toBe(200);
    expect(stale.body).toContain('<h1>Sign in</h1>');
    const recentEnough = await browser.get(authorizeUrl({ max_age: '600' }));
    expect(recentEnough.body).toContain('Approve');
    const noLimit = await browser.get(authorizeUrl());
    expect(noLimit.body).toContain('Approve');
  });

  it.each([['-1'], ['1.5'], ['soon'], ['123456789']])('refuses max_age=%s with invalid_request back to the client', async (value) => {
    const response = await new Browser().get(authorizeUrl({ max_age: value }));
    expect(response.statusCode).toBe(303);
    expect(new URL(response.headers.location as string).searchParams.get('error')).toBe('invalid_request');
  });
});

describe('errors', () => {
  it('shows an error page, never a redirect, for an unregistered redirect URI', async () => {
    const response = await new Browser().get(authorizeUrl({ redirect_uri: 'http://127.0.0.1:8765/elsewhere' }));
    expect(response.statusCode).toBe(400);
    expect(response.headers.location).toBeUndefined();
    expectPageHeaders(response);
    expect(response.body).toContain('redirect_uri is not one of the redirect URIs registered');
  });

  it('shows an error page for an unknown client', async () => {
    const response = await new Browser().get(authorizeUrl({ client_id: 'nobody' }));
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('not known to this server');
  });

  it('redirects a repeated parameter with invalid_request', async () => {
    const response = await new Browser().get(`${authorizeUrl()}&nonce=again`);
    expect(response.statusCode).toBe(303);
    const location = new URL(response.headers.location as string);
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('error_description')).toBe('The nonce parameter is included more than once');
    expect(location.searchParams.get('iss')).toBe(ISSUER);
  });

  it('answers prompt=none with login_required without a session, consent_required with one', async () => {
    const anonymous = await new Browser().get(authorizeUrl({ prompt: 'none' }));
    expect(new URL(anonymous.headers.location as string).searchParams.get('error')).toBe('login_required');
    const browser = new Browser();
    await signIn(browser);
    const signedIn = await browser.get(authorizeUrl({ prompt: 'none' }));
    expect(new URL(signedIn.headers.location as string).searchParams.get('error')).toBe('consent_required');
  });

  it('redirects invalid_target for a resource elsewhere', async () => {
    const response = await new Browser().get(authorizeUrl({ resource: 'https://evil.example/' }));
    expect(new URL(response.headers.location as string).searchParams.get('error')).toBe('invalid_target');
  });
});

describe('responses that never reach the controller', () => {
  it('carry the page headers too (registerAuthorizePlugins)', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/oauth/authorize/login',
      headers: { 'content-type': 'application/xml' },
      payload: '<email>x</email>',
    });
    expect(response.statusCode).toBe(415);
    expectPageHeaders(response);
  });
});

describe('DemoSeeder', () => {
  it('is idempotent and creates both schools with their owners', async () => {
    await app.get(DemoSeeder).seed();
    const users = await prisma.user.findMany({ orderBy: { email: 'asc' }, select: { email: true, schoolId: true, role: true, emailVerified: true, name: true } });
    expect(users).toEqual([
      { email: 'demo@academy.test', schoolId: 'demo-school', role: 'owner', emailVerified: true, name: 'Dana Demo' },
      { email: 'other@academy.test', schoolId: 'other-school', role: 'owner', emailVerified: true, name: 'Olly Other' },
    ]);
    expect(await prisma.school.findMany({ orderBy: { id: 'asc' } })).toMatchObject([
      { id: 'demo-school', name: 'Demo Academy' },
      { id: 'other-school', name: 'Northwind Institute' },
    ]);
  });
});
