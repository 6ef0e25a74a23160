/**
 * AuthorizeService's decisions, without HTTP: plain parameters and cookies in, an outcome out
 * (a thrown error counts as the outcome the exception filter makes of it). The same walk over
 * HTTP on PostgreSQL is authorize.http.spec.ts; this file pins which outcome each situation gets.
 */
import { createHash } from 'node:crypto';
import type { AccountsService } from '../accounts/accounts.service';
import type { Branding } from '../branding/branding';
import type { BrandingService } from '../branding/branding.service';
import type { ClientDirectory, DirectoryClient } from '../client-metadata-documents';
import type { SecurityEvent } from '@platform/contracts';
import type { AuthConfig } from '../config/auth-config';
import { hashToken } from '../crypto/tokens';
import { CONSENT_TOKEN_TTL_SECONDS, CsrfTokens } from '../pages/csrf';
import type { SecurityEventInput } from '../security-events/security-event';
import type { SecurityEvents } from '../security-events/security-events';
import { SessionService } from '../sessions/session.service';
import type { NewSession, SessionsRepository, StoredSession } from '../sessions/sessions.repository';
import type { BrowserRequest } from '../pages/browser-request';
import { type AuthorizeOutcome, outcomeOfError } from './authorize-outcome';
import type { ApprovedAuthorization, AuthorizeRepository, ConsentToRemember, ConsentTokenUse } from './authorize.repository';
import { AuthorizeService } from './authorize.service';
import { redirectUrisDigest, scopeToRemember, type StoredConsent } from './remembered-consent';

const ISSUER = 'http://127.0.0.1:3999';
const REDIRECT = 'http://127.0.0.1:8765/callback';
const CHALLENGE = createHash('sha256').update('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk').digest('base64url');
const IP = '203.0.113.7';
const USER_AGENT = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const HOSTED_REDIRECT = 'https://agent.example.com/oauth/callback';
const USER = { id: 'user-1', email: 'dana@academy.test', name: 'Dana Demo', schoolId: 'demo-school', schoolName: 'Demo Academy' };
const CONFIG = {
  issuer: ISSUER,
  apiResource: ISSUER,
  secureCookies: false,
  ttl: { accessToken: 3600, refreshToken: 86400, authorizationCode: 60, session: 3600, refreshReuseGrace: 30 },
} as AuthConfig;
const DEFAULT_SCHOOL: Branding = { name: 'Course Platform', theme: {} as Branding['theme'] };
const schoolBranding = (schoolId: string): Branding => ({ name: `branding of ${schoolId}`, theme: {} as Branding['theme'] });

function client(id: string, changes: Partial<DirectoryClient> = {}): DirectoryClient {
  return {
    id,
    secretHash: null,
    name: 'Lesson Planner',
    applicationType: 'native',
    redirectUris: [REDIRECT],
    tokenEndpointAuthMethod: 'none',
    grantTypes: ['authorization_code', 'refresh_token'],
    responseTypes: ['code'],
    dpopBoundAccessTokens: false,
    scope: 'openid students:read',
    createdAt: new Date(0),
    kind: 'dynamic',
    scopeCeiling: null,
    host: null,
    loopbackOnly: true,
    ...changes,
  };
}
const CLIENTS = new Map<string, DirectoryClient>([
  ['planner', client('planner')],
  ['unnamed', client('unnamed', { name: '  ' })],
  ['cimd', client('https://app.example.com/client.json', { host: 'app.example.com', loopbackOnly: false })],
  ['other', client('other', { name: 'Other App', redirectUris: ['http://127.0.0.1:9999/other-callback'] })],
  // A hosted agent's metadata document: its code goes to its own https origin.
  ['hosted', client('https://agent.example.com/client.json', { kind: 'metadata_document', host: 'agent.example.com', loopbackOnly: false, redirectUris: [HOSTED_REDIRECT] })],
  // A CLI's metadata document: loopback redirect URIs, a client_id anyone can name.
  ['cli', client('https://cli.example.com/client.json', { kind: 'metadata_document', host: 'cli.example.com', loopbackOnly: true })],
  ['cli-with-key', client('https://keyed.example.com/client.json', { kind: 'metadata_document', host: 'keyed.example.com', tokenEndpointAuthMethod: 'private_key_jwt' })],
]);

/** The service with its collaborators: real CSRF tokens and sessions (over rows in memory). */
function setup() {
  const sessionRows = new Map<string, StoredSession>();
  const sessionsRepository = {
    findSessionByTokenHash: async (hash: string) => sessionRows.get(hash) ?? null,
    replaceSession: async (previous: string | null, session: NewSession) => {
      if (previous) sessionRows.delete(previous);
      const stored = { id: `session-${sessionRows.size + 1}`, userId: session.userId, authTime: session.authTime, expiresAt: session.expiresAt, user: USER };
      sessionRows.set(session.tokenHash, stored);
      return stored;
    },
  } as unknown as SessionsRepository;
  const approved: ApprovedAuthorization[] = [];
  /** How each grant was approved, in order: on the page, or on remembered consent without one. */
  const approvals: ('form' | 'remembered')[] = [];
  // The consumed consent tokens, as the primary key of consumed_consent_tokens keeps them.
  const consumed = new Map<string, ConsentTokenUse>();
  const consume = (token: ConsentTokenUse) => !consumed.has(token.idHash) && Boolean(consumed.set(token.idHash, token));
  // The consents rows, by user and client, as authorize.repository.ts keeps them.
  const consents = new Map<string, StoredConsent & ConsentToRemember & { lastUsedAt: Date | null }>();
  const consentKey = (userId: string, clientId: string) => `${userId}|${clientId}`;
  /** Runs as a code on remembered consent is stored: what another instance does meanwhile. */
  const meanwhile = { beforeRememberedUse: () => undefined as void };
  /** The security events, in order: those written with a grant (in its transaction) and those recorded after a change. */
  const events: (SecurityEvent | SecurityEventInput)[] = [];
  const repository: Pick<AuthorizeRepository, 'insertGrantWithCode' | 'consumeConsentToken' | 'insertGrantOnRememberedConsent' | 'findConsent'> = {
    insertGrantWithCode: async (grant, token, now, remember, granted) => {
      if (!consume(token)) return null;
      approved.push(grant);
      approvals.push('form');
      events.push(granted(`grant-${approved.length}`));
      if (remember) {
        const key = consentKey(grant.userId, grant.clientId);
        const stored = consents.get(key) ?? null;
        const scope = scopeToRemember(stored, remember.scopes, remember.redirectUrisDigest, now);
        consents.set(key, { ...remember, id: stored?.id ?? `consent-${consents.size + 1}`, scope, lastUsedAt: null });
      }
      return { grantId: `grant-${approved.length}` };
    },
    insertGrantOnRememberedConsent: async (grant, use, now, granted) => {
      meanwhile.beforeRememberedUse();
      const stored = consents.get(consentKey(grant.userId, grant.clientId));
      if (!stored || stored.id !== use.consentId || stored.expiresAt <= now) return null;
      Object.assign(stored, { lastUsedAt: now, expiresAt: use.expiresAt });
      approved.push(grant);
      approvals.push('remembered');
      events.push(granted(`grant-${approved.length}`));
      return { grantId: `grant-${approved.length}` };
    },
    findConsent: async (userId, clientId) => consents.get(consentKey(userId, clientId)) ?? null,
    consumeConsentToken: async (token) => consume(token),
  };
  const passwordChecks: { email: string; ip?: string; clientId?: string }[] = [];
  const accounts = {
    verifyPassword: async (email: string, password: string, ip?: string, clientId?: string) => {
      passwordChecks.push({ email, ip, clientId });
      return email === USER.email && password === 'demo-password' ? { id: USER.id } : null;
    },
  } as unknown as AccountsService;
  const branding = { forDefaultSchool: async () => DEFAULT_SCHOOL, forSchool: async (id: string) => schoolBranding(id) } as unknown as BrandingService;
  const clients = { findClient: async (id: string) => CLIENTS.get(id) ?? null } as unknown as ClientDirectory;
  const service = new AuthorizeService(
    repository as AuthorizeRepository,
    new SessionService(sessionsRepository, CONFIG),
    accounts,
    new CsrfTokens(CONFIG),
    branding,
    clients,
    { record: async (event: SecurityEventInput) => void events.push(event) } as unknown as SecurityEvents,
    CONFIG,
  );
  return { service, sessionRows, approved, approvals, consumed, consents, meanwhile, passwordChecks, events };
}

type Setup = ReturnType<typeof setup>;

/** A browser without HTTP: its cookie jar takes what the outcomes set. */
class Browser {
  readonly jar = new Map<string, string>();

  constructor(readonly world: Setup) {}

  get request(): BrowserRequest {
    return { cookies: Object.fromEntries(this.jar), ip: IP, userAgent: USER_AGENT };
  }

  async authorize(changes: Record<string, string | null> = {}): Promise<AuthorizeOutcome> {
    return this.keep(this.world.service.authorize(params(changes), this.request));
  }

  async login(form: Record<string, string>, changes: Record<string, string | null> = {}): Promise<AuthorizeOutcome> {
    return this.keep(this.world.service.login(params(changes, form), this.request));
  }

  async consent(form: Record<string, string>, changes: Record<string, string | null> = {}): Promise<AuthorizeOutcome> {
    return this.keep(this.world.service.consent(params(changes, form), this.request));
  }

  /** The CSRF token of the page this browser was last shown. */
  async tokenOf(page: Promise<AuthorizeOutcome>): Promise<string> {
    const outcome = await page;
    if (outcome.kind !== 'sign-in' && outcome.kind !== 'consent') throw new Error(`no form in a ${outcome.kind} outcome`);
    return outcome.form.csrfToken;
  }

  async signIn(changes: Record<string, string | null> = {}): Promise<void> {
    const _csrf = await this.tokenOf(this.authorize(changes));
    const outcome = await this.login({ _csrf, email: USER.email, password: 'demo-password' }, changes);
    expect(outcome.kind).toBe('signed-in');
  }

  private async keep(decision: Promise<AuthorizeOutcome>): Promise<AuthorizeOutcome> {
    let outcome: AuthorizeOutcome;
    try {
      outcome = await decision;
    } catch (error) {
      outcome = outcomeOfError(error, ISSUER).outcome;
    }
    if ('setCookies' in outcome) {
      for (const cookie of outcome.setCookies) {
        const [name, value] = cookie.split(';', 1)[0].split('=');
        this.jar.set(name, value);
      }
    }
    return outcome;
  }
}

function params(changes: Record<string, string | null>, form: Record<string, string> = {}): Map<string, string[]> {
  const all: Record<string, string | null> = {
    client_id: 'planner',
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'openid students:read',
    state: 'state-abc',
    nonce: 'nonce-xyz',
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    ...changes,
    ...form,
  };
  const map = new Map<string, string[]>();
  for (const [name, value] of Object.entries(all)) if (value !== null) map.set(name, value.split('\u0001'));
  return map;
}

const signedIn = async (b: Browser) => b.signIn();
const ageSession = (seconds: number) => async (b: Browser) => {
  await b.signIn();
  for (const row of b.world.sessionRows.values()) row.authTime = new Date(Date.now() - seconds * 1000);
};
const expireSession = async (b: Browser) => {
  await b.signIn();
  for (const row of b.world.sessionRows.values()) row.expiresAt = new Date(Date.now() - 1000);
};
const toClient = (query: Record<string, string>) => ({ kind: 'to-client', redirectUri: REDIRECT, params: { ...query, iss: ISSUER } });
const CARRIED: [string, string][] = [
  ['client_id', 'planner'],
  ['redirect_uri', REDIRECT],
  ['response_type', 'code'],
  ['scope', 'openid students:read'],
  ['state', 'state-abc'],
  ['nonce', 'nonce-xyz'],
  ['code_challenge', CHALLENGE],
  ['code_challenge_method', 'S256'],
];
const CONSENT_PAGE = {
  kind: 'consent',
  client: { name: 'Lesson Planner', host: undefined, loopbackOnly: true },
  redirectUri: REDIRECT,
  scopes: ['openid', 'students:read'],
  alreadyGranted: [],
  user: { name: USER.name, email: USER.email, schoolName: USER.schoolName },
  branding: schoolBranding(USER.schoolId),
  form: { carried: CARRIED },
};

describe('AuthorizeService: GET /oauth/authorize', () => {
  it.each<[string, ((b: Browser) => Promise<void>) | null, Record<string, string | null>, object]>([
    ['signed out: the sign-in page, default branding', null, {}, { kind: 'sign-in', clientName: 'Lesson Planner', branding: DEFAULT_SCHOOL, form: { carried: CARRIED } }],
    ['a client without a name is named by its id', null, { client_id: 'unnamed' }, { kind: 'sign-in', clientName: 'unnamed' }],
    ['signed in: the consent page, the school\'s branding', signedIn, {}, CONSENT_PAGE],
    ['signed in, prompt=login: sign in again', signedIn, { prompt: 'login' }, { kind: 'sign-in' }],
    ['signed in, prompt=select_account: sign in again', signedIn, { prompt: 'select_account' }, { kind: 'sign-in' }],
    ['signed in, prompt=consent: the consent page', signedIn, { prompt: 'consent' }, { kind: 'consent' }],
    ['signed in 120 s ago, max_age=60: sign in again', ageSession(120), { max_age: '60' }, { kind: 'sign-in' }],
    ['signed in 120 s ago, max_age=600: the consent page', ageSession(120), { max_age: '600' }, { kind: 'consent' }],
    ['an expired session counts as none', expireSession, {}, { kind: 'sign-in' }],
    [
      'prompt=none, signed out: login_required to the client',
      null,
      { prompt: 'none' },
      toClient({ error: 'login_required', error_description: 'The user is not signed in and prompt=none forbids asking', state: 'state-abc' }),
    ],
    [
      'prompt=none, signed in, nothing approved before: consent_required',
      signedIn,
      { prompt: 'none' },
      toClient({ error: 'consent_required', error_description: 'The user has to approve this request and prompt=none forbids asking', state: 'state-abc' }),
    ],
    [
      'a repeated parameter: invalid_request to the client',
      null,
      { nonce: 'a\u0001b' },
      toClient({ error: 'invalid_request', error_description: 'The nonce parameter is included more than once', state: 'state-abc' }),
    ],
    ['an unknown client: a page, no redirect', null, { client_id: 'nobody' }, { kind: 'error-page', error: { error: 'invalid_request', status: 400 } }],
    ['an unregistered redirect_uri: a page, no redirect', null, { redirect_uri: 'http://127.0.0.1:8765/elsewhere' }, { kind: 'error-page', error: { error: 'invalid_request' } }],
  ])('%s', async (_name, before, changes, expected) => {
    const browser = new Browser(setup());
    if (before) await before(browser);
    expect(await browser.authorize(changes)).toMatchObject(expected);
  });

  it('shows a metadata-document client by its host, and says whether it runs on this computer', async () => {
    const browser = new Browser(setup());
    await browser.signIn();
    const outcome = await browser.authorize({ client_id: 'cimd' });
    expect(outcome).toMatchObject({ kind: 'consent', client: { name: 'Lesson Planner', host: 'app.example.com', loopbackOnly: false } });
  });

  it('plants the CSRF secret only in a browser that has none', async () => {
    const browser = new Browser(setup());
    expect(await browser.authorize()).toMatchObject({ setCookies: [expect.stringMatching(/^csrf=[\w-]{43}; Path=\/; HttpOnly; SameSite=Lax$/)] });
    expect(await browser.authorize()).toMatchObject({ setCookies: [] });
  });
});

describe('AuthorizeService: POST /oauth/authorize/login', () => {
  it.each<[string, (b: Browser) => Promise<Record<string, string>>, object]>([
    ['a forged CSRF token: the page again, email kept', async () => ({ _csrf: 'forged.token', email: USER.email, password: 'demo-password' }), { kind: 'sign-in', problem: 'form-expired', email: USER.email }],
    [
      'a wrong password: bad credentials',
      async (b) => ({ _csrf: await b.tokenOf(b.authorize()), email: USER.email, password: 'nope' }),
      { kind: 'sign-in', problem: 'bad-credentials', email: USER.email },
    ],
    [
      'an unknown email: the same bad credentials',
      async (b) => ({ _csrf: await b.tokenOf(b.authorize()), email: 'ghost@academy.test', password: 'nope' }),
      { kind: 'sign-in', problem: 'bad-credentials', email: 'ghost@academy.test' },
    ],
    [
      'a very long email is echoed cut to 320 characters',
      async (b) => ({ _csrf: await b.tokenOf(b.authorize()), email: 'a'.repeat(400), password: 'nope' }),
      { kind: 'sign-in', problem: 'bad-credentials', email: 'a'.repeat(320) },
    ],
    [
      'the right password: back to the request, with a session cookie',
      async (b) => ({ _csrf: await b.tokenOf(b.authorize()), email: USER.email, password: 'demo-password' }),
      {
        kind: 'signed-in',
        location: `/oauth/authorize?${new URLSearchParams(CARRIED).toString()}`,
        setCookies: [expect.stringMatching(/^session=[\w-]{43}; Max-Age=3600; Path=\/; HttpOnly; SameSite=Lax$/)],
      },
    ],
  ])('%s', async (_name, form, expected) => {
    const browser = new Browser(setup());
    expect(await browser.login(await form(browser))).toMatchObject(expected);
  });

  it('a browser without the CSRF cookie gets one with the page that says the form expired', async () => {
    const outcome = await new Browser(setup()).login({ _csrf: 'x.y', email: USER.email, password: 'demo-password' });
    expect(outcome).toMatchObject({ kind: 'sign-in', problem: 'form-expired', setCookies: [expect.stringMatching(/^csrf=/)] });
  });

  it('checks the password with the client address (the sign-in rate limits) and the client it signs in for (its security event)', async () => {
    const world = setup();
    const browser = new Browser(world);
    await browser.login({ _csrf: await browser.tokenOf(browser.authorize()), email: USER.email, password: 'nope' });
    expect(world.passwordChecks).toEqual([{ email: USER.email, ip: IP, clientId: 'planner' }]);
  });

  it('drops prompt=login and select_account from the request it returns to, keeps the rest', async () => {
    const browser = new Browser(setup());
    const changes = { prompt: 'login consent select_account' };
    const outcome = await browser.login({ _csrf: await browser.tokenOf(browser.authorize(changes)), email: USER.email, password: 'demo-password' }, changes);
    expect(outcome.kind === 'signed-in' && new URL(outcome.location, ISSUER).searchParams.get('prompt')).toBe('consent');
  });

  it('replaces the session the browser had (fixation)', async () => {
    const world = setup();
    const browser = new Browser(world);
    await browser.signIn();
    const first = browser.jar.get('session') as string;
    await browser.signIn({ prompt: 'login' });
    expect(browser.jar.get('session')).not.toBe(first);
    expect([...world.sessionRows.keys()]).toEqual([hashToken(browser.jar.get('session') as string)]);
  });
});

describe('AuthorizeService: POST /oauth/authorize/consent', () => {
  /** A signed-in browser on the consent page; the form it would send. */
  async function onConsentPage(world = setup()) {
    const browser = new Browser(world);
    await browser.signIn();
    return { browser, _csrf: await browser.tokenOf(browser.authorize()) };
  }

  it.each<[string, (page: Awaited<ReturnType<typeof onConsentPage>>) => Promise<AuthorizeOutcome>, object]>([
    ['Deny: access_denied to the client', ({ browser, _csrf }) => browser.consent({ _csrf, decision: 'deny' }), toClient({ error: 'access_denied', error_description: 'The user denied the request', state: 'state-abc' })],
    ['no decision: the page again', ({ browser, _csrf }) => browser.consent({ _csrf }), { ...CONSENT_PAGE, problem: 'no-decision' }],
    ['an unknown decision: the page again', ({ browser, _csrf }) => browser.consent({ _csrf, decision: 'maybe' }), { kind: 'consent', problem: 'no-decision' }],
    ['a forged CSRF token: the page again', ({ browser }) => browser.consent({ _csrf: 'forged.token', decision: 'approve' }), { kind: 'consent', problem: 'form-expired' }],
    [
      'a scope widened in the form: the token named the scope shown',
      ({ browser, _csrf }) => browser.consent({ _csrf, decision: 'approve' }, { scope: 'openid students:write' }),
      { kind: 'consent', problem: 'form-expired', scopes: ['openid', 'students:read', 'students:write'] },
    ],
    [
      'an unknown scope carried back: invalid_scope to the client',
      ({ browser, _csrf }) => browser.consent({ _csrf, decision: 'approve' }, { scope: 'openid admin:everything' }),
      { kind: 'to-client', params: { error: 'invalid_scope' } },
    ],
    [
      'a swapped redirect_uri: a page, no redirect',
      ({ browser, _csrf }) => browser.consent({ _csrf, decision: 'approve' }, { redirect_uri: 'http://evil.example/cb' }),
      { kind: 'error-page', error: { error: 'invalid_request' } },
    ],
    [
      'the session ended: the sign-in page',
      async ({ browser, _csrf }) => {
        for (const row of browser.world.sessionRows.values()) row.expiresAt = new Date(0);
        return browser.consent({ _csrf, decision: 'approve' });
      },
      { kind: 'sign-in', problem: 'session-ended', email: undefined },
    ],
  ])('%s', async (_name, act, expected) => {
    const page = await onConsentPage();
    expect(await act(page)).toMatchObject(expected);
    expect(page.browser.world.approved).toEqual([]);
  });

  it("refuses another session's token, even with that browser's CSRF cookie", async () => {
    const world = setup();
    const attacker = await onConsentPage(world);
    const victim = await onConsentPage(world);
    victim.browser.jar.set('csrf', attacker.browser.jar.get('csrf') as string);
    expect(await victim.browser.consent({ _csrf: attacker._csrf, decision: 'approve' })).toMatchObject({ kind: 'consent', problem: 'form-expired' });
    expect(world.approved).toEqual([]);
  });

  it('Approve: stores the grant with a hashed code, consumes the form, and sends the code to the client with state and iss', async () => {
    const world = setup();
    const { browser, _csrf } = await onConsentPage(world);
    const outcome = await browser.consent({ _csrf, decision: 'approve' }, { resource: `${ISSUER}/mcp` });
    expect(outcome).toMatchObject({ kind: 'to-client', redirectUri: REDIRECT, params: { code: expect.stringMatching(/^[\w-]{43}$/), state: 'state-abc', iss: ISSUER } });
    const code = outcome.kind === 'to-client' ? (outcome.params.code as string) : '';
    const [session] = world.sessionRows.values();
    expect(world.approved).toEqual([
      {
        clientId: 'planner',
        userId: USER.id,
        schoolId: USER.schoolId,
        scope: 'openid students:read',
        resource: ISSUER,
        nonce: 'nonce-xyz',
        authTime: session.authTime,
        codeHash: hashToken(code),
        redirectUri: REDIRECT,
        codeChallenge: CHALLENGE,
        codeExpiresAt: expect.any(Date),
      },
    ]);
    const ttl = world.approved[0].codeExpiresAt.getTime() - Date.now();
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    // The form's token is consumed with the grant: only its id's hash, until the token would expire.
    const [token] = world.consumed.values();
    expect(token.idHash).toBe(hashToken(_csrf.split('.')[0]));
    expect(token.expiresAt.getTime()).toBe(Number(_csrf.split('.')[1]) * 1000 + CONSENT_TOKEN_TTL_SECONDS * 1000);
  });

  it("grants only the request the page showed: client A's token with client B's request gets the page again, no code", async () => {
    const world = setup();
    const { browser, _csrf } = await onConsentPage(world);
    const clientB = { client_id: 'other', redirect_uri: 'http://127.0.0.1:9999/other-callback', code_challenge: 'B'.repeat(43), state: 'state-of-b' };
    expect(await browser.consent({ _csrf, decision: 'approve' }, clientB)).toMatchObject({ kind: 'consent', problem: 'form-expired', client: { name: 'Other App' } });
    expect(world.approved).toEqual([]);
    expect(world.consumed.size).toBe(0);
  });

  it.each<[string, Record<string, string | null>]>([
    ['another client', { client_id: 'unnamed' }],
    ['another redirect URI (a loopback port the client may use)', { redirect_uri: 'http://127.0.0.1:9/callback' }],
    ["another PKCE challenge (the attacker's verifier)", { code_challenge: 'B'.repeat(43) }],
    ['another state', { state: 'state-of-the-attacker' }],
    ['no state', { state: null }],
    ['another nonce', { nonce: 'nonce-of-the-attacker' }],
  ])('refuses the token for the same request with %s', async (_name, changes) => {
    const world = setup();
    const { browser, _csrf } = await onConsentPage(world);
    expect(await browser.consent({ _csrf, decision: 'approve' }, changes)).toMatchObject({ kind: 'consent', problem: 'form-expired' });
    expect(world.approved).toEqual([]);
  });

  it('approves once: the same form sent again gets the page again, no second code', async () => {
    const world = setup();
    const { browser, _csrf } = await onConsentPage(world);
    expect(await browser.consent({ _csrf, decision: 'approve' })).toMatchObject({ kind: 'to-client', params: { code: expect.any(String) } });
    expect(await browser.consent({ _csrf, decision: 'approve' })).toMatchObject({ ...CONSENT_PAGE, problem: 'form-expired' });
    expect(world.approved).toHaveLength(1);
  });

  it('a denial consumes the form too: it cannot approve afterwards, nor deny again', async () => {
    const world = setup();
    const { browser, _csrf } = await onConsentPage(world);
    expect(await browser.consent({ _csrf, decision: 'deny' })).toMatchObject({ kind: 'to-client', params: { error: 'access_denied' } });
    expect(await browser.consent({ _csrf, decision: 'approve' })).toMatchObject({ kind: 'consent', problem: 'form-expired' });
    expect(await browser.consent({ _csrf, decision: 'deny' })).toMatchObject({ kind: 'consent', problem: 'form-expired' });
    expect(world.approved).toEqual([]);
  });

  it('records the approval with its grant (client, scope, resource, address), and the denial after the form is consumed; a form sent again records nothing', async () => {
    const approving = await onConsentPage();
    await approving.browser.consent({ _csrf: approving._csrf, decision: 'approve' });
    await approving.browser.consent({ _csrf: approving._csrf, decision: 'approve' });
    const denying = await onConsentPage();
    await denying.browser.consent({ _csrf: denying._csrf, decision: 'deny' });
    await denying.browser.consent({ _csrf: denying._csrf, decision: 'deny' });
    expect([...approving.browser.world.events, ...denying.browser.world.events]).toEqual([
      expect.objectContaining({
        type: 'auth.consent.granted',
        school_id: 'demo-school',
        actor: { type: 'user', id: 'user-1' },
        subject: { type: 'grant', id: 'grant-1' },
        client_id: 'planner',
        address: IP,
        outcome: 'success',
        data: { scope: 'openid students:read', resource: ISSUER, approval: 'form' },
      }),
      {
        type: 'auth.consent.denied',
        schoolId: 'demo-school',
        actor: { type: 'user', id: 'user-1' },
        clientId: 'planner',
        address: IP,
        outcome: 'failure',
        data: { scope: 'openid students:read', resource: ISSUER },
      },
    ]);
  });

  it('a form sent without a decision stays usable: the user has not answered yet', async () => {
    const world = setup();
    const { browser, _csrf } = await onConsentPage(world);
    expect(await browser.consent({ _csrf })).toMatchObject({ kind: 'consent', problem: 'no-decision' });
    expect(await browser.consent({ _csrf, decision: 'approve' })).toMatchObject({ kind: 'to-client' });
  });

  describe('after the consent form lifetime', () => {
    const start = new Date('2026-11-28T12:00:00Z');
    // Only the clock is faked: promises and timers run as usual.
    beforeEach(() => jest.useFakeTimers({ now: start, doNotFake: ['nextTick', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'queueMicrotask', 'hrtime', 'performance'] }));
    afterEach(() => jest.useRealTimers());

    it.each([
      [CONSENT_TOKEN_TTL_SECONDS, 'to-client'],
      [CONSENT_TOKEN_TTL_SECONDS + 1, 'consent'],
    ])('a form answered %i s after it was shown: %s', async (seconds, kind) => {
      const world = setup();
      const { browser, _csrf } = await onConsentPage(world);
      jest.setSystemTime(new Date(start.getTime() + seconds * 1000));
      const outcome = await browser.consent({ _csrf, decision: 'approve' });
      expect(outcome.kind).toBe(kind);
      if (outcome.kind === 'consent') expect(outcome.problem).toBe('form-expired');
    });
  });
});

describe('AuthorizeService: remembered consent', () => {
  /** Signs in and approves `changes` on the consent page; the browser stays signed in. */
  async function approvedOnce(changes: Record<string, string | null> = {}, world = setup()) {
    const browser = new Browser(world);
    await browser.signIn(changes);
    const _csrf = await browser.tokenOf(browser.authorize(changes));
    expect(await browser.consent({ _csrf, decision: 'approve' }, changes)).toMatchObject({ kind: 'to-client' });
    return browser;
  }
  const hosted = { client_id: 'hosted', redirect_uri: HOSTED_REDIRECT };
  const cli = { client_id: 'cli' };

  it('the same client asking again for what was approved gets its code at once, recorded as issued without a page', async () => {
    const browser = await approvedOnce();
    const outcome = await browser.authorize({ state: 'second', code_challenge: 'C'.repeat(43) });
    expect(outcome).toMatchObject({ kind: 'to-client', redirectUri: REDIRECT, params: { code: expect.stringMatching(/^[\w-]{43}$/), state: 'second', iss: ISSUER } });
    expect(browser.world.approvals).toEqual(['form', 'remembered']);
    expect(browser.world.events.map((event) => (event as SecurityEvent).data)).toEqual([
      expect.objectContaining({ approval: 'form' }),
      expect.objectContaining({ approval: 'remembered' }),
    ]);
    // Bound to this very request, exactly as an approval on the page is.
    const code = outcome.kind === 'to-client' ? (outcome.params.code as string) : '';
    expect(browser.world.approved[1]).toMatchObject({ clientId: 'planner', scope: 'openid students:read', codeHash: hashToken(code), codeChallenge: 'C'.repeat(43), redirectUri: REDIRECT, nonce: 'nonce-xyz' });
    // No consent form was answered for it.
    expect(browser.world.consumed.size).toBe(1);
  });

  it('asks only for what is new on a step-up, and names what was approved before', async () => {
    const browser = await approvedOnce();
    const outcome = await browser.authorize({ scope: 'openid students:read courses:write' });
    expect(outcome).toMatchObject({ kind: 'consent', scopes: ['courses:read', 'courses:write'], alreadyGranted: ['openid', 'students:read'] });
    // Approving the step-up grants the whole request, and the next time nothing is asked.
    const _csrf = await browser.tokenOf(Promise.resolve(outcome));
    expect(await browser.consent({ _csrf, decision: 'approve' }, { scope: 'openid students:read courses:write' })).toMatchObject({ kind: 'to-client' });
    expect(browser.world.approved[1].scope).toBe('openid courses:read courses:write students:read');
    expect(await browser.authorize({ scope: 'courses:read students:read' })).toMatchObject({ kind: 'to-client' });
    expect(browser.world.approvals).toEqual(['form', 'form', 'remembered']);
  });

  it('remembers per client: another client of the same user is asked (a newly registered client always is)', async () => {
    const browser = await approvedOnce();
    expect(await browser.authorize({ client_id: 'other', redirect_uri: 'http://127.0.0.1:9999/other-callback' })).toMatchObject({
      kind: 'consent',
      client: { name: 'Other App' },
      scopes: ['openid', 'students:read'],
      alreadyGranted: [],
    });
  });

  it('prompt=consent always asks, for the whole request', async () => {
    const browser = await approvedOnce();
    expect(await browser.authorize({ prompt: 'consent' })).toMatchObject({ kind: 'consent', scopes: ['openid', 'students:read'], alreadyGranted: [] });
  });

  it.each<[string, Record<string, string | null>, object]>([
    ['everything asked was approved: the code (OpenID Connect Core §3.1.2.1)', { prompt: 'none' }, { kind: 'to-client', params: { code: expect.any(String), state: 'state-abc' } }],
    ['something new is asked: consent_required', { prompt: 'none', scope: 'openid orders:read' }, { kind: 'to-client', params: { error: 'consent_required', state: 'state-abc' } }],
    ['the sign-in is older than max_age: login_required', { prompt: 'none', max_age: '0' }, { kind: 'to-client', params: { error: 'login_required' } }],
  ])('prompt=none after an approval, %s', async (_name, changes, expected) => {
    const browser = await approvedOnce();
    for (const row of browser.world.sessionRows.values()) row.authTime = new Date(Date.now() - 5000);
    expect(await browser.authorize(changes)).toMatchObject(expected);
  });

  it('a hosted metadata-document client (https redirect URI) is not asked again', async () => {
    const browser = await approvedOnce(hosted);
    expect(await browser.authorize(hosted)).toMatchObject({ kind: 'to-client', redirectUri: HOSTED_REDIRECT, params: { code: expect.any(String) } });
    expect(await browser.authorize({ ...hosted, prompt: 'none' })).toMatchObject({ kind: 'to-client', params: { code: expect.any(String) } });
  });

  it('a metadata-document client on a loopback redirect URI is asked every time: any program here could name it (RFC 8252 §8.6)', async () => {
    const browser = await approvedOnce(cli);
    expect(await browser.authorize(cli)).toMatchObject({ kind: 'consent', client: { host: 'cli.example.com', loopbackOnly: true }, scopes: ['openid', 'students:read'], alreadyGranted: [] });
    expect(await browser.authorize({ ...cli, prompt: 'none' })).toMatchObject({ kind: 'to-client', params: { error: 'consent_required' } });
    expect(browser.world.approvals).toEqual(['form']);
  });

  it('unless it authenticates with a key: a code is worthless to an impersonator', async () => {
    const keyed = { client_id: 'cli-with-key' };
    const browser = await approvedOnce(keyed);
    expect(await browser.authorize(keyed)).toMatchObject({ kind: 'to-client', params: { code: expect.any(String) } });
  });

  it("forgets the consent once the client's redirect URIs change (a metadata document naming other ones): the whole request is asked", async () => {
    const world = setup();
    const browser = await approvedOnce(hosted, world);
    const [consent] = world.consents.values();
    consent.redirectUrisDigest = redirectUrisDigest([HOSTED_REDIRECT, 'https://elsewhere.example/callback']);
    expect(await browser.authorize(hosted)).toMatchObject({ kind: 'consent', scopes: ['openid', 'students:read'], alreadyGranted: [] });
  });

  it('a lapsed consent is asked again; a use pushes the lapse on by the refresh token lifetime', async () => {
    const world = setup();
    const browser = await approvedOnce({}, world);
    const [consent] = world.consents.values();
    const lifetime = consent.expiresAt.getTime() - Date.now();
    expect(lifetime).toBeGreaterThan(CONFIG.ttl.refreshToken * 1000 - 60_000);
    expect(lifetime).toBeLessThanOrEqual(CONFIG.ttl.refreshToken * 1000);
    consent.expiresAt = new Date(Date.now() + 1000);
    expect(await browser.authorize()).toMatchObject({ kind: 'to-client' });
    expect(consent.expiresAt.getTime()).toBeGreaterThan(Date.now() + CONFIG.ttl.refreshToken * 1000 - 60_000);
    consent.expiresAt = new Date(Date.now() - 1000);
    expect(await browser.authorize()).toMatchObject({ kind: 'consent', scopes: ['openid', 'students:read'], alreadyGranted: [] });
  });

  it('remembers the approving browser by its families and network, never the User-Agent or the address', async () => {
    const world = setup();
    await approvedOnce({}, world);
    const [consent] = world.consents.values();
    expect(consent).toMatchObject({ device: 'Chrome on macOS', network: '203.0.113.0/24', scopes: ['openid', 'students:read'] });
  });

  it('a denial forgets nothing that was approved before', async () => {
    const browser = await approvedOnce();
    const _csrf = await browser.tokenOf(browser.authorize({ scope: 'openid orders:read' }));
    expect(await browser.consent({ _csrf, decision: 'deny' }, { scope: 'openid orders:read' })).toMatchObject({ params: { error: 'access_denied' } });
    expect(await browser.authorize()).toMatchObject({ kind: 'to-client', params: { code: expect.any(String) } });
  });

  it('a consent forgotten between the decision and the code gets the page', async () => {
    const world = setup();
    const browser = await approvedOnce({}, world);
    // Disconnect on the connected-apps page, on another instance, while this request is decided.
    world.meanwhile.beforeRememberedUse = () => void world.consents.clear();
    expect(await browser.authorize()).toMatchObject({ kind: 'consent', scopes: ['openid', 'students:read'] });
    expect(world.approvals).toEqual(['form']);
  });
});

describe('outcomeOfError', () => {
  it.each<[string, unknown, object]>([
    ['an unexpected error: a 500 page', new Error('boom'), { kind: 'error-page', error: { error: 'server_error', status: 500 } }],
    [
      'an unreachable peer: a 503 page',
      Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }),
      { kind: 'error-page', error: { error: 'temporarily_unavailable', status: 503 } },
    ],
  ])('%s', (_name, exception, expected) => {
    expect(outcomeOfError(exception, ISSUER).outcome).toMatchObject(expected);
  });
});
