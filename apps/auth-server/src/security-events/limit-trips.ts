/** Callers remembered at most; past it the oldest is forgotten (its next refusal is recorded again). */
const MAX_REMEMBERED = 10_000;

/**
 * Which refusals under a request limit are trips worth a security event: the first of a caller
 * under a limit, not the ones that follow while it waits. A caller is remembered until its
 * Retry-After has passed, in this process: each replica records a caller's trip once, and a
 * flood of refused requests costs the audit log nothing more.
 */
export class LimitTrips {
  /** `limit key` → when its refusals stop (ms since the epoch). Insertion order: the oldest first. */
  private readonly until = new Map<string, number>();

  /** True for the first refusal of `key` under `limit` until `retryAfterSeconds` from `now`. */
  tripped(limit: string, key: string, retryAfterSeconds: number, now = Date.now()): boolean {
    const id = `${limit} ${key}`;
    const known = this.until.get(id);
    if (known !== undefined && known > now) return false;
    this.until.delete(id);
    if (this.until.size >= MAX_REMEMBERED) this.until.delete(this.until.keys().next().value as string);
    this.until.set(id, now + retryAfterSeconds * 1000);
    return true;
  }
}
