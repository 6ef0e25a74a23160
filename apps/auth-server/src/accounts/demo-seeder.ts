import { Injectable, Logger } from '@nestjs/common';
import { AccountsRepository } from './accounts.repository';
import { hashPassword } from './password';

interface DemoTenant {
  school: { id: string; name: string };
  user: { id: string; email: string; password: string; name: string; role: string };
}

/**
 * The demo school and its owner, plus a second school for tenant-isolation tests. Only used
 * when config.seedDemoData is on, which loadAuthConfig refuses in production.
 */
export const DEMO_TENANTS: readonly DemoTenant[] = [
  {
    school: { id: 'demo-school', name: 'Demo Academy' },
    user: { id: 'demo-owner', email: 'demo@academy.test', password: 'demo-password', name: 'Dana Demo', role: 'owner' },
  },
  {
    school: { id: 'other-school', name: 'Northwind Institute' },
    user: { id: 'other-owner', email: 'other@academy.test', password: 'other-password', name: 'Olly Other', role: 'owner' },
  },
];

@Injectable()
export class DemoSeeder {
  private readonly logger = new Logger(DemoSeeder.name);

  constructor(private readonly accounts: AccountsRepository) {}

  /** Idempotent: existing schools and users are left untouched (passwords are not reset). */
  async seed(): Promise<void> {
    for (const { school, user } of DEMO_TENANTS) {
      await this.accounts.upsertSchool(school.id, school.name);
      // Hashing costs tens of milliseconds; skip it on every start after the first.
      if (await this.accounts.existsByEmail(user.email)) continue;
      await this.accounts.insertAccountIfAbsent({
        id: user.id,
        email: user.email,
        name: user.name,
        role: user.role,
        passwordHash: await hashPassword(user.password),
        emailVerified: true,
        schoolId: school.id,
      });
      this.logger.log(`demo account ${user.email} created in ${school.name}`);
    }
  }
}
