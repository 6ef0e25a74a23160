import { withoutTrailingSlashes } from '@platform/contracts';
import { Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { AuthConfig } from '../config/auth-config';
import { type Branding, DEFAULT_BRANDING, type SchoolAppearance, type SchoolProfile, toBranding } from './branding';

export interface BrandingOptions {
  /** Per request to the resource server; the page waits at most this long for the branding. */
  timeoutMs: number;
  /** How long a school's branding is reused: a changed theme shows within this time. */
  ttlMs: number;
  /** How long a failure (and what was shown instead) is reused, so an outage costs one timeout per school per period. */
  failureTtlMs: number;
  maxEntries: number;
  /** The clock of the cache (tests). */
  clock?: { now(): number };
}

export const DEFAULT_BRANDING_OPTIONS: BrandingOptions = {
  timeoutMs: 1_000,
  ttlMs: 5 * 60_000,
  failureTtlMs: 10_000,
  maxEntries: 1_000,
};

/** A page answer is small; a larger one is not the resource server's public profile. */
const MAX_BODY_BYTES = 64 * 1024;

class UnusableAnswer extends Error {}

type Fetched<T> = { ok: true; value: T } | { ok: false; reason: string };

/**
 * The school's public name and theme for the sign-in pages, read anonymously from the
 * resource server's public API (`GET /api/v1/school` and `/api/v1/appearance`, `?school=`).
 * Never fails a page: an unreachable, slow or erring resource server, or an unknown school,
 * gives the neutral platform branding. Results are cached in memory (LRU), failures briefly,
 * and concurrent pages of one school share one request.
 */
export class BrandingService {
  private readonly logger = new Logger('Branding');
  private readonly options: BrandingOptions;
  private readonly cache: LRUCache<string, Branding>;
  private readonly pending = new Map<string, Promise<Branding>>();
  private readonly baseUrl: string;

  constructor(
    private readonly config: Pick<AuthConfig, 'branding' | 'issuer'>,
    options: Partial<BrandingOptions> = {},
  ) {
    this.options = { ...DEFAULT_BRANDING_OPTIONS, ...options };
    this.baseUrl = withoutTrailingSlashes(config.branding.resourceServerUrl);
    this.cache = new LRUCache<string, Branding>({
      max: this.options.maxEntries,
      ttl: this.options.ttlMs,
      ...(this.options.clock ? { perf: this.options.clock, ttlResolution: 0 } : {}),
    });
  }

  /** The login page's branding: nobody has signed in, so the platform's default school. */
  forDefaultSchool(): Promise<Branding> {
    return this.forSchool(this.config.branding.defaultSchoolId);
  }

  forSchool(schoolId: string): Promise<Branding> {
    const cached = this.cache.get(schoolId);
    if (cached) return Promise.resolve(cached);
    let loading = this.pending.get(schoolId);
    if (!loading) {
      loading = this.load(schoolId).finally(() => this.pending.delete(schoolId));
      this.pending.set(schoolId, loading);
    }
    return loading;
  }

  private async load(schoolId: string): Promise<Branding> {
    try {
      const [profile, appearance] = await Promise.all([
        this.fetchJson<SchoolProfile>('/api/v1/school', schoolId),
        this.fetchJson<SchoolAppearance>('/api/v1/appearance', schoolId),
      ]);
      const branding = toBranding(profile.ok ? profile.value : undefined, appearance.ok ? appearance.value : undefined, this.config.issuer);
      const failure = !profile.ok
        ? profile.reason
        : branding === DEFAULT_BRANDING
          ? '/api/v1/school answered no school name'
          : !appearance.ok
            ? appearance.reason
            : undefined;
      if (failure) {
        this.logger.warn(`branding of school ${JSON.stringify(schoolId)} unavailable (${failure}); showing ${branding === DEFAULT_BRANDING ? 'the platform default' : 'the neutral theme'}`);
      }
      this.cache.set(schoolId, branding, { ttl: failure ? this.options.failureTtlMs : this.options.ttlMs });
      return branding;
    } catch (error) {
      // Nothing above should throw; if it does, the page still renders.
      this.logger.error(`branding of school ${JSON.stringify(schoolId)} failed`, error instanceof Error ? error.stack : String(error));
      this.cache.set(schoolId, DEFAULT_BRANDING, { ttl: this.options.failureTtlMs });
      return DEFAULT_BRANDING;
    }
  }

  private async fetchJson<T extends object>(path: string, schoolId: string): Promise<Fetched<T>> {
    const url = `${this.baseUrl}${path}?${new URLSearchParams({ school: schoolId })}`;
    try {
      const response = await fetch(url, {
        headers: { accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      if (response.status !== 200) {
        await response.body?.cancel();
        throw new UnusableAnswer(`${path} answered ${response.status}`);
      }
      if (Number(response.headers.get('content-length') ?? 0) > MAX_BODY_BYTES) {
        await response.body?.cancel();
        throw new UnusableAnswer(`${path} answered more than ${MAX_BODY_BYTES} bytes`);
      }
      const text = await response.text();
      if (text.length > MAX_BODY_BYTES) throw new UnusableAnswer(`${path} answered more than ${MAX_BODY_BYTES} bytes`);
      const body: unknown = JSON.parse(text);
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new UnusableAnswer(`${path} answered no JSON object`);
      return { ok: true, value: body as T };
    } catch (error) {
      return { ok: false, reason: describeFailure(error) };
    }
  }
}

/** Duck-typed: fetch's errors may come from another realm (undici's DOMException, test sandboxes). */
function describeFailure(error: unknown): string {
  if (error instanceof UnusableAnswer) return error.message;
  const { name, message, cause } = (error ?? {}) as { name?: unknown; message?: unknown; cause?: { message?: unknown; code?: unknown } };
  if (name === 'TimeoutError' || name === 'AbortError') return 'timed out';
  if (name === 'SyntaxError') return 'not JSON';
  const detail = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : undefined;
  return `${typeof message === 'string' ? message : String(error)}${detail ? `: ${detail}` : ''}`;
}
