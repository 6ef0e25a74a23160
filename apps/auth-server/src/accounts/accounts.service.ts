import { Injectable, Logger } from '@nestjs/common';
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

@Injectable()
export class AccountsService {
  private readonly logger = new Logger(AccountsService.name);

  constructor(
    private readonly accounts: AccountsRepository,
    private readonly throttle: LoginThrottle,
  ) {}

  /**
   * The account whose email and password these are, or null. Every failure looks the same
   * and costs one argon2 verification, whether or not the email exists. Throws
   * LoginThrottledError (429) while the account or the client's address is locked after too
   * many failures; that check comes first and costs no argon2.
   */
  async verifyPassword(email: string, password: string, clientAddress?: string): Promise<Account | null> {
    const normalized = normalizeEmail(email);
    const admission = await this.throttle.admit(normalized, clientAddress);
    let account: Account | null;
    try {
      account = await this.check(normalized, password);
    } catch (error) {
      await this.throttle.abandoned(admission);
      throw error;
    }
    if (account) await this.throttle.succeeded(admission);
    else await this.throttle.failed(admission);
    return account;
  }

  private async check(normalized: string, password: string): Promise<Account | null> {
    const credentials =
      normalized.length > 0 && normalized.length <= 320 ? await this.accounts.findCredentialsByEmail(normalized) : null;
    const tooLong = password.length > MAX_PASSWORD_LENGTH;
    const hash = credentials && !tooLong ? credentials.passwordHash : await dummyPasswordHash();
    const matches = await verifyPasswordHash(hash, tooLong ? '' : password);
    if (!credentials || tooLong || !matches) return null;

    if (passwordNeedsRehash(credentials.passwordHash)) {
      // Parameters were raised since this hash was made; upgrade it while the password is at hand.
      await this.accounts
        .updatePasswordHash(credentials.userId, await hashPassword(password))
        .catch((error: unknown) => this.logger.warn(`password rehash failed: ${String(error)}`));
    }
    return this.accounts.findAccountById(credentials.userId);
  }

  findById(id: string): Promise<Account | null> {
    return this.accounts.findAccountById(id);
  }

  hashPassword(password: string): Promise<string> {
    return hashPassword(password);
  }
}
