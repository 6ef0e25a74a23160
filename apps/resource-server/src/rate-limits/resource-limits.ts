import type { AdmittedRequest, AuthPrincipal, CallerAdmission } from '@platform/bearer-auth';
import { isTokenPrincipal } from '@platform/bearer-auth';
import { TooManyRequestsError } from '@platform/oauth-errors';
import { addressBucket, KeyedLimit, keyDigest, type Limit, type Refusal, type WindowCounter } from '@platform/rate-limits';

/** Requests that change nothing (RFC 9110 §9.2.1 safe methods). */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface ResourceLimitsConfig {
  enabled: boolean;
  writesPerUser: Limit;
  anonymousPerIp: Limit;
}

/**
 * The resource server's request limits, keyed the way the authorization server keys its own
 * (after authentication per principal, before it per address, loosely):
 * - writes per user: once the bearer token is validated, so only the token's holder spends the
 *   user's budget; a write is any API request that is not GET/HEAD/OPTIONS, or an /mcp
 *   `tools/call` of a tool that writes;
 * - requests without a token per client address: the anonymous reads of the API and /mcp.
 * Reads with a token are not counted: the token was issued under the authorization server's
 * limits and each one is validated once (cached). The counts are shared by every instance
 * (Redis when REDIS_URL is set).
 *
 * As the guard's CALLER_ADMISSION it judges every API request the guard accepts; /mcp, outside
 * the guard, is judged by mcp-limits.ts with the same two limits.
 */
export class ResourceRequestLimits implements CallerAdmission {
  private readonly writes: KeyedLimit;
  private readonly anonymous: KeyedLimit;

  constructor(
    private readonly config: ResourceLimitsConfig,
    counter: WindowCounter,
  ) {
    this.writes = new KeyedLimit({ name: 'writes:user', ...config.writesPerUser, subject: 'writes by this user' }, counter);
    this.anonymous = new KeyedLimit({ name: 'anonymous:ip', ...config.anonymousPerIp, subject: 'requests without an access token from this address' }, counter);
  }

  /** The guard's admission of an API request: throws 429 (RFC 6749-style body, Retry-After) past a limit. */
  admit(request: AdmittedRequest, principal: AuthPrincipal): void | Promise<void> {
    const refusal = this.judge(principal, SAFE_METHODS.has(request.method) ? 0 : 1, request.ip);
    if (refusal instanceof Promise) return refusal.then(throwIfRefused);
    throwIfRefused(refusal);
  }

  /**
   * One request's refusal, if any: `writes` is how many writes it carries (an /mcp batch may
   * carry several). A token's writes count per user; a caller without a token counts once per
   * request against its address, whatever it asks.
   */
  judge(principal: AuthPrincipal, writes: number, ip: string): Refusal | undefined | Promise<Refusal | undefined> {
    if (!this.config.enabled) return undefined;
    if (!isTokenPrincipal(principal)) return this.anonymous.hit(addressBucket(ip));
    if (writes === 0) return undefined;
    const key = keyDigest(`user ${principal.userId}`);
    if (writes === 1) return this.writes.hit(key);
    return hitTimes(this.writes, key, writes);
  }
}

/** Counts `times` hits of one key; the first refusal, if any. */
async function hitTimes(limit: KeyedLimit, key: string, times: number): Promise<Refusal | undefined> {
  for (let i = 0; i < times; i++) {
    const refusal = await limit.hit(key);
    if (refusal) return refusal;
  }
  return undefined;
}

/** What a refused caller is told, on the API and at /mcp alike. */
export function refusalDescription(refusal: Refusal): string {
  return `Too many ${refusal.rule.subject}; retry after ${refusal.retryAfterSeconds} seconds`;
}

function throwIfRefused(refusal: Refusal | undefined): void {
  if (refusal) throw new TooManyRequestsError(refusal.retryAfterSeconds, refusalDescription(refusal));
}
