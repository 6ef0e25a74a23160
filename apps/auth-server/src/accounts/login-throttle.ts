import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { TooManyRequestsError } from '@platform/oauth-errors';
import { addressBucket, type BackoffPolicy, lockAfterFailure, type Outcome, type RateLimitStore } from '@platform/rate-limits';
import { createHash } from 'node:crypto';
import { AUTH_CONFIG, type AuthConfig } from '../config/auth-config';
import type { BackoffLimits } from '../config/limits-config';
import { RATE_LIMIT_STORE } from '../rate-limits/rate-limit-store';

/**
 * 429 on the sign-in form. One message whatever was locked (the account, the address) and
 * whether or not the account exists.
 */
export class LoginThrottledError extends TooManyRequestsError {
  constructor(retryAfterSeconds: number) {
    super(retryAfterSeconds, `Too many sign-in attempts. Wait ${describeWait(retryAfterSeconds)}, then try again.`);
  }
}

interface Admitted {
  key: string;
  ticket: string;
  policy: BackoffPolicy;
  /** Failures counted when the attempt was admitted. */
  failures: number;
}

/** A failure that locked a key: the sign-in backoff tripped (recorded as a security event). */
export interface LoginLock {
  scope: 'account' | 'address';
  seconds: number;
}

export interface LoginAdmission {
  account: Admitted;
  address?: Admitted;
}

const policy = (limits: BackoffLimits): BackoffPolicy => ({
  freeFailures: limits.freeFailures,
  baseDelayMs: limits.baseDelaySeconds * 1000,
  maxDelayMs: limits.maxDelaySeconds * 1000,
  forgetAfterMs: limits.forgetAfterSeconds * 1000,
  maxPending: limits.maxConcurrent,
});

/**
 * Failed sign-ins, throttled with exponential backoff per account and per client address
 * (OWASP Authentication Cheat Sheet, "Login Throttling"): after the free failures, each one
 * locks the key for twice as long as the one before. Every attempt is admitted before the
 * password is checked (refused at once, without argon2, while a key is locked or already has
 * its maximum of attempts under way) and settled after. Accounts are keyed by the SHA-256 of
 * the normalized email, existing or not, so the answers never tell which emails have an
 * account, and Redis never holds an email.
 *
 * Locking an account by its email lets anyone delay its owner's sign-in; the lock is bounded
 * (LOGIN_BACKOFF_MAX_SECONDS) and grows only with attempts actually checked, never with refused ones.
 */
@Injectable()
export class LoginThrottle implements OnApplicationShutdown {
  private readonly accountPolicy: BackoffPolicy;
  private readonly ipPolicy: BackoffPolicy;

  constructor(
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
    @Inject(AUTH_CONFIG) config: AuthConfig,
  ) {
    const { login } = config.limits;
    this.accountPolicy = policy(login.account);
    this.ipPolicy = policy(login.ip);
  }

  /** Admits one attempt; throws LoginThrottledError while the address or the account is locked. */
  async admit(normalizedEmail: string, ip: string | undefined): Promise<LoginAdmission> {
    let address: Admitted | undefined;
    if (ip) {
      const key = `login:ip:${addressBucket(ip)}`;
      const byAddress = await this.store.attempt(key, this.ipPolicy);
      if (!byAddress.ticket) throw new LoginThrottledError(toSeconds(byAddress.retryInMs));
      address = { key, ticket: byAddress.ticket, policy: this.ipPolicy, failures: byAddress.failures };
    }
    const key = `login:account:${createHash('sha256').update(normalizedEmail, 'utf8').digest('base64url')}`;
    const byAccount = await this.store.attempt(key, this.accountPolicy);
    if (!byAccount.ticket) {
      if (address) await this.settle(address, 'forgiven');
      throw new LoginThrottledError(toSeconds(byAccount.retryInMs));
    }
    return { account: { key, ticket: byAccount.ticket, policy: this.accountPolicy, failures: byAccount.failures }, address };
  }

  /**
   * A wrong password (or an unknown email): a failure for both keys. The locks this failure
   * starts (none while failures are free), as far as this attempt knows: attempts settled
   * meanwhile by other requests may have started one first.
   */
  async failed(admission: LoginAdmission): Promise<LoginLock[]> {
    await this.settle(admission.account, 'failed');
    if (admission.address) await this.settle(admission.address, 'failed');
    const locks: LoginLock[] = [];
    for (const [scope, admitted] of [['account', admission.account], ['address', admission.address]] as const) {
      const lockMs = admitted ? lockAfterFailure(admitted.failures + 1, admitted.policy) : 0;
      if (lockMs > 0) locks.push({ scope, seconds: toSeconds(lockMs) });
    }
    return locks;
  }

  /** The right password: the account starts afresh; the address's earlier failures stay. */
  async succeeded(admission: LoginAdmission): Promise<void> {
    await this.settle(admission.account, 'cleared');
    if (admission.address) await this.settle(admission.address, 'forgiven');
  }

  /** The check itself failed (e.g. the database is down): not the caller's failure. */
  async abandoned(admission: LoginAdmission): Promise<void> {
    await this.settle(admission.account, 'forgiven');
    if (admission.address) await this.settle(admission.address, 'forgiven');
  }

  /** After the HTTP server has finished its requests (onModuleDestroy would run before). */
  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }

  private settle(admitted: Admitted, outcome: Outcome): Promise<void> {
    return this.store.settle(admitted.key, admitted.policy, outcome, admitted.ticket);
  }
}

function toSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

function describeWait(seconds: number): string {
  if (seconds < 60) return seconds === 1 ? '1 second' : `${seconds} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}
