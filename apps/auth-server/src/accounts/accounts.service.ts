import { Injectable, Logger } from '@nestjs/common';
import { type RequestOrigin, signInFailed, signInSucceeded, signInThrottled, type UserRef } from '../security-events/recorded-events';
import { SecurityEvents } from '../security-events/security-events';
import { AccountsRepository, type Account } from './accounts.repository';
import { LoginThrottle } from './login-throttle';
import {
  MAX_PASSWORD_LENGTH,
  dummyPasswordHash,
  hashPassword,
  normalizeEmail,
  passwordNeedsRehash,
  verifyPasswordHash,
} from './password';

/** A password checked: the account when it matched; the account the email names, if any, either way. */
interface PasswordCheck {
  account: Account | null;
  user: UserRef | null;
}

@Injectable()
export class AccountsService {
  private readonly logger = new Logger(AccountsService.name);

  constructor(
    private readonly accounts: AccountsRepository,
    private readonly throttle: LoginThrottle,
    private readonly events: SecurityEvents,
  ) {}

  /**
   * The account whose email and password these are, or null. Every failure looks the same
   * and costs one argon2 verification, whether or not the email exists. Throws
   * LoginThrottledError (429) while the account or the client's address is locked after too
   * many failures; that check comes first and costs no argon2.
   *
   * Records the sign-in, the failure, and a lock the failure starts (security events): refused
   * attempts while a lock holds are not recorded one by one, the lock was.
   */
  async verifyPassword(email: string, password: string, clientAddress?: string, clientId?: string): Promise<Account | null> {
    const normalized = normalizeEmail(email);
    const admission = await this.throttle.admit(normalized, clientAddress);
    let checked: PasswordCheck;
    try {
      checked = await this.check(normalized, password);
    } catch (error) {
      await this.throttle.abandoned(admission);
      throw error;
    }
    const origin: RequestOrigin = { address: clientAddress, clientId };
    if (checked.account) {
      await this.throttle.succeeded(admission);
      await this.events.record(signInSucceeded({ id: checked.account.id, schoolId: checked.account.schoolId }, origin));
      return checked.account;
    }
    const locks = await this.throttle.failed(admission);
    // Recorded together: one statement for the failure and its locks.
    await Promise.all([
      this.events.record(signInFailed(checked.user, origin)),
      ...locks.map((lock) => this.events.record(signInThrottled(checked.user, lock, origin))),
    ]);
    return null;
  }

  private async check(normalized: string, password: string): Promise<PasswordCheck> {
    const credentials =
      normalized.length > 0 && normalized.length <= 320 ? await this.accounts.findCredentialsByEmail(normalized) : null;
    const tooLong = password.length > MAX_PASSWORD_LENGTH;
    const hash = credentials && !tooLong ? credentials.passwordHash : await dummyPasswordHash();
    const matches = await verifyPasswordHash(hash, tooLong ? '' : password);
    const user = credentials ? { id: credentials.userId, schoolId: credentials.schoolId } : null;
    if (!credentials || tooLong || !matches) return { account: null, user };

    if (passwordNeedsRehash(credentials.passwordHash)) {
      // Parameters were raised since this hash was made; upgrade it while the password is at hand.
      await this.accounts
        .updatePasswordHash(credentials.userId, await hashPassword(password))
        .catch((error: unknown) => this.logger.warn(`password rehash failed: ${String(error)}`));
    }
    return { account: await this.accounts.findAccountById(credentials.userId), user };
  }

  findById(id: string): Promise<Account | null> {
    return this.accounts.findAccountById(id);
  }

  hashPassword(password: string): Promise<string> {
    return hashPassword(password);
  }
}
