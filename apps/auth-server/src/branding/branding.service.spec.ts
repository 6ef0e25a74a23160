/**
 * BrandingService against a real HTTP server standing in for the resource server's public
 * API: what a page shows when it answers, fails, is slow or is gone, and what is cached.
 */
import { Logger } from '@nestjs/common';
import Fastify, { type FastifyInstance } from 'fastify';
import { DEFAULT_BRANDING } from './branding';
import { type BrandingOptions, BrandingService } from './branding.service';
import { NEUTRAL_THEME } from './theme';

const PUBLIC_ORIGIN = 'http://127.0.0.1:3000';

const DEMO_SCHOOL = { id: 'demo-school', name: 'Demo Academy', slug: 'demo-academy', description: 'Courses.' };
const DEMO_APPEARANCE = {
  primary_color: '#4f46e5',
  accent_color: '#f97316',
  background_color: '#ffffff',
  text_color: '#0f172a',
  font_family: 'Inter',
  logo_url: null,
  favicon_url: null,
  updated_at: null,
};

interface Behaviour {
  school: { status: number; body: unknown; delayMs?: number };
  appearance: { status: number; body: unknown; delayMs?: number };
}

/** The stand-in: answers as `behaviour` says and records every request. */
class ResourceServerStandIn {
  readonly requests: string[] = [];
  behaviour: Behaviour = { school: { status: 200, body: DEMO_SCHOOL }, appearance: { status: 200, body: DEMO_APPEARANCE } };
  private readonly app: FastifyInstance = Fastify();
  url = '';

  async start(): Promise<void> {
    for (const [path, key] of [['/api/v1/school', 'school'], ['/api/v1/appearance', 'appearance']] as const) {
      this.app.get(path, async (request, reply) => {
        this.requests.push(request.url);
        const { status, body, delayMs } = this.behaviour[key];
        if (delayMs) await delay(delayMs, request.raw);
        return reply.status(status).header('content-type', 'application/json').send(typeof body === 'string' ? body : JSON.stringify(body));
      });
    }
    this.url = await this.app.listen({ host: '127.0.0.1', port: 0 });
  }

  stop(): Promise<void> {
    return this.app.close();
  }
}

/** Ends early when the client gives up, so that no timer outlives the test. */
function delay(ms: number, request: NodeJS.EventEmitter): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    request.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** A clock the cache reads, moved by hand. */
class ManualClock {
  private time = 1_000_000;
  now = () => this.time;
  advance(ms: number) {
    this.time += ms;
  }
}

let standIn: ResourceServerStandIn;
let clock: ManualClock;
let warnings: jest.SpyInstance;

beforeEach(async () => {
  warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  standIn = new ResourceServerStandIn();
  await standIn.start();
  clock = new ManualClock();
});

afterEach(async () => {
  warnings.mockRestore();
  await standIn.stop();
});

function service(options: Partial<BrandingOptions> = {}, resourceServerUrl = standIn.url): BrandingService {
  return new BrandingService(
    { issuer: PUBLIC_ORIGIN, branding: { resourceServerUrl, defaultSchoolId: 'demo-school' } },
    // A deadline far above a busy machine's answer time: only the timeout's own test sets a short one.
    { timeoutMs: 5_000, ttlMs: 60_000, failureTtlMs: 5_000, clock, ...options },
  );
}

describe('BrandingService', () => {
  it("reads the school's name and theme anonymously, by ?school=", async () => {
    const branding = await service().forSchool('other-school');
    expect(branding.name).toBe('Demo Academy');
    expect(branding.theme.brand).toBe('#4f46e5');
    expect(branding.theme.ink).toBe('#0f172a');
    expect(standIn.requests.sort()).toEqual(['/api/v1/appearance?school=other-school', '/api/v1/school?school=other-school']);
  });

  it('reads the default school for the login page', async () => {
    await service().forDefaultSchool();
    expect(standIn.requests).toContain('/api/v1/school?school=demo-school');
  });

  it('encodes the school id in the query', async () => {
    await service().forSchool('a&b=c d');
    expect(standIn.requests).toContain('/api/v1/school?school=a%26b%3Dc+d');
  });

  it('caches a school for the TTL, then reads it again', async () => {
    const branding = service();
    await branding.forSchool('demo-school');
    clock.advance(59_000);
    await branding.forSchool('demo-school');
    expect(standIn.requests).toHaveLength(2);
    clock.advance(2_000);
    await branding.forSchool('demo-school');
    expect(standIn.requests).toHaveLength(4);
  });

  it('caches each school on its own', async () => {
    const branding = service();
    await branding.forSchool('demo-school');
    await branding.forSchool('other-school');
    expect(standIn.requests).toHaveLength(4);
  });

  it('lets concurrent pages of one school share one request', async () => {
    standIn.behaviour.school.delayMs = 50;
    const branding = service();
    const results = await Promise.all(Array.from({ length: 10 }, () => branding.forSchool('demo-school')));
    expect(new Set(results).size).toBe(1);
    expect(standIn.requests).toHaveLength(2);
  });

  it.each([
    ['500', { status: 500, body: { error: 'server_error' } }],
    ['503', { status: 503, body: { error: 'temporarily_unavailable' } }],
    ['404 (an unknown school)', { status: 404, body: { error: 'not_found' } }],
    ['200 that is not JSON', { status: 200, body: '<html>' }],
    ['200 with a JSON array', { status: 200, body: [DEMO_SCHOOL] }],
    ['200 without a name', { status: 200, body: { id: 'demo-school', name: '' } }],
  ])('falls back to the platform default when the profile answers %s', async (_, answer) => {
    standIn.behaviour.school = answer;
    expect(await service().forSchool('demo-school')).toBe(DEFAULT_BRANDING);
    expect(warnings).toHaveBeenCalledTimes(1);
    expect(DEFAULT_BRANDING.name).toBe('Course Platform');
  });

  it("keeps the school's name with the neutral theme when only the appearance fails", async () => {
    standIn.behaviour.appearance = { status: 500, body: {} };
    expect(await service().forSchool('demo-school')).toEqual({ name: 'Demo Academy', theme: NEUTRAL_THEME });
  });

  it('falls back to the default after the timeout, not when the answer comes', async () => {
    // An answer after 60 s: waiting for it would outlast the test's own timeout.
    standIn.behaviour.school.delayMs = 60_000;
    expect(await service({ timeoutMs: 200 }).forSchool('demo-school')).toBe(DEFAULT_BRANDING);
    expect(warnings).toHaveBeenCalledWith('branding of school "demo-school" unavailable (timed out); showing the platform default');
  });

  it('falls back to the default when the resource server is unreachable', async () => {
    const url = standIn.url;
    await standIn.stop();
    expect(await service({}, url).forSchool('demo-school')).toBe(DEFAULT_BRANDING);
    expect(warnings).toHaveBeenCalledWith(expect.stringMatching(/unavailable \(fetch failed: ECONNREFUSED\)/));
    standIn = new ResourceServerStandIn(); // for afterEach
    await standIn.start();
  });

  it('remembers a failure briefly (one timeout per period, not per page), then recovers', async () => {
    standIn.behaviour.school = { status: 503, body: {} };
    const branding = service();
    expect(await branding.forSchool('demo-school')).toBe(DEFAULT_BRANDING);
    standIn.behaviour.school = { status: 200, body: DEMO_SCHOOL };
    clock.advance(4_000);
    expect(await branding.forSchool('demo-school')).toBe(DEFAULT_BRANDING);
    expect(standIn.requests).toHaveLength(2);
    clock.advance(2_000);
    expect((await branding.forSchool('demo-school')).name).toBe('Demo Academy');
    expect(standIn.requests).toHaveLength(4);
  });

  it('never lets hostile values through: invalid colors become neutral, an http logo is dropped', async () => {
    standIn.behaviour.appearance.body = {
      ...DEMO_APPEARANCE,
      primary_color: 'red; background: url(https://evil.example/x)',
      text_color: '#ffffff',
      logo_url: 'http://tracker.example/pixel.gif',
      font_family: 'Inter"; } * { display: none',
    };
    const branding = await service().forSchool('demo-school');
    expect(branding.theme.brand).toBe(NEUTRAL_THEME.brand);
    expect(branding.theme.ink).not.toBe('#ffffff');
    expect(branding.theme.font).toBe(NEUTRAL_THEME.font);
    expect(branding.logo).toBeUndefined();
  });

  it('shows an https logo with alt text and its origin for the CSP', async () => {
    standIn.behaviour.appearance.body = { ...DEMO_APPEARANCE, logo_url: 'https://cdn.example.com/demo/logo.png' };
    expect((await service().forSchool('demo-school')).logo).toEqual({
      url: 'https://cdn.example.com/demo/logo.png',
      alt: 'Demo Academy logo',
      cspSource: 'https://cdn.example.com',
    });
  });
});
