import { MemoryRateLimitStore } from '@platform/rate-limits';
import type { AuthConfig } from '../config/auth-config';
import type { SecurityEventInput } from '../security-events/security-event';
import type { SecurityEvents } from '../security-events/security-events';
import { type LimitsConfig, loadLimitsConfig } from '../config/limits-config';
import { AccountsRepository, type Account } from './accounts.repository';
import { AccountsService } from './accounts.service';
import { LoginThrottle, LoginThrottledError } from './login-throttle';
import * as password from './password';

jest.mock('./password', () => {
  const actual = jest.requireActual<typeof import('./password')>('./password');
  return { ...actual, verifyPasswordHash: jest.fn(actual.verifyPasswordHash) };
});

const ACCOUNT: Account = {
  id: 'user-1',
  email: 'dana@academy.test',
  name: 'Dana',
  role: 'owner',
  emailVerified: true,
  schoolId: 'demo-school',
  schoolName: 'Demo Academy',
};

function throttleWith(env: Record<string, string> = {}): LoginThrottle {
  const limits: LimitsConfig = loadLimitsConfig({ LOGIN_FREE_FAILURES_PER_ACCOUNT: '3', LOGIN_BACKOFF_BASE_SECONDS: '60', ...env });
  return new LoginThrottle(new MemoryRateLimitStore(), { limits } as AuthConfig);
}

async function serviceWith(storedPassword: string, throttle = throttleWith()) {
  const hash = await password.hashPassword(storedPassword);
  const repository = {
    findCredentialsByEmail: jest.fn(async (email: string) =>
      email === ACCOUNT.email ? { userId: ACCOUNT.id, schoolId: ACCOUNT.schoolId, passwordHash: hash } : null,
    ),
    findAccountById: jest.fn(async (id: string) => (id === ACCOUNT.id ? ACCOUNT : null)),
    updatePasswordHash: jest.fn(async () => undefined),
  };
  const recorded: SecurityEventInput[] = [];
  const events = { record: async (event: SecurityEventInput) => void recorded.push(event) } as unknown as SecurityEvents;
  return { service: new AccountsService(repository as unknown as AccountsRepository, throttle, events), repository, recorded };
}

describe('AccountsService.verifyPassword', () => {
  it('returns the account for the right password', async () => {
    const { service } = await serviceWith('correct horse');
    await expect(service.verifyPassword('dana@academy.test', 'correct horse')).resolves.toEqual(ACCOUNT);
  });

  it('normalizes the email (case, surrounding spaces)', async () => {
    const { service, repository } = await serviceWith('correct horse');
    await expect(service.verifyPassword('  Dana@Academy.TEST ', 'correct horse')).resolves.toEqual(ACCOUNT);
    expect(repository.findCredentialsByEmail).toHaveBeenCalledWith('dana@academy.test');
  });

  it('returns null for a wrong password', async () => {
    const { service } = await serviceWith('correct horse');
    await expect(service.verifyPassword('dana@academy.test', 'Correct horse')).resolves.toBeNull();
  });

  it('runs an argon2 verification even when the email does not exist', async () => {
    const { service } = await serviceWith('correct horse');
    const verify = jest.mocked(password.verifyPasswordHash);
    verify.mockClear();
    await expect(service.verifyPassword('nobody@academy.test', 'correct horse')).resolves.toBeNull();
    expect(verify).toHaveBeenCalledTimes(1);
    expect(verify).toHaveBeenCalledWith(await password.dummyPasswordHash(), 'correct horse');
  });

  it('refuses an overlong password without hashing it against the real hash', async () => {
    const { service } = await serviceWith('correct horse');
    await expect(service.verifyPassword('dana@academy.test', 'x'.repeat(password.MAX_PASSWORD_LENGTH + 1))).resolves.toBeNull();
  });

  it('upgrades a hash made with other parameters after a successful login', async () => {
    const { service, repository } = await serviceWith('correct horse');
    const weak = await (await import('@node-rs/argon2')).hash('correct horse', { algorithm: 2, memoryCost: 8192, timeCost: 1, parallelism: 1 });
    repository.findCredentialsByEmail.mockResolvedValueOnce({ userId: ACCOUNT.id, schoolId: ACCOUNT.schoolId, passwordHash: weak });
    await expect(service.verifyPassword('dana@academy.test', 'correct horse')).resolves.toEqual(ACCOUNT);
    expect(repository.updatePasswordHash).toHaveBeenCalledWith(ACCOUNT.id, expect.stringMatching(/^\$argon2id\$v=19\$(?=.*m=19456)(?=.*t=2)(?=.*p=1)/));
  });
});

describe('AccountsService.verifyPassword: login throttling', () => {
  it('locks an account after the free failures, and answers the same for an unknown email', async () => {
    const { service } = await serviceWith('correct horse');
    for (const email of ['dana@academy.test', 'nobody@academy.test']) {
      for (let i = 0; i < 3; i++) await expect(service.verifyPassword(email, 'wrong')).resolves.toBeNull();
      // The fourth failure is still checked; it locks the key for the next attempt.
      await expect(service.verifyPassword(email, 'wrong')).resolves.toBeNull();
      const refused = service.verifyPassword(email, 'correct horse');
      await expect(refused).rejects.toThrow(LoginThrottledError);
      await expect(refused).rejects.toMatchObject({
        status: 429,
        error: 'too_many_requests',
        retryAfterSeconds: 60,
        description: 'Too many sign-in attempts. Wait 1 minute, then try again.',
      });
    }
  });

  it('spends no argon2 verification on a locked account', async () => {
    const { service } = await serviceWith('correct horse');
    for (let i = 0; i < 4; i++) await service.verifyPassword('dana@academy.test', 'wrong');
    const verify = jest.mocked(password.verifyPasswordHash);
    verify.mockClear();
    await expect(service.verifyPassword('dana@academy.test', 'wrong')).rejects.toThrow(LoginThrottledError);
    expect(verify).not.toHaveBeenCalled();
  });

  it('counts the account by its normalized email', async () => {
    const { service } = await serviceWith('correct horse');
    for (const email of ['dana@academy.test', ' DANA@academy.test', 'Dana@Academy.Test ', 'dana@ACADEMY.test']) {
      await service.verifyPassword(email, 'wrong');
    }
    await expect(service.verifyPassword('dana@academy.test', 'correct horse')).rejects.toThrow(LoginThrottledError);
  });

  it('starts afresh after a successful sign-in', async () => {
    const { service } = await serviceWith('correct horse');
    for (let i = 0; i < 3; i++) await service.verifyPassword('dana@academy.test', 'wrong');
    await expect(service.verifyPassword('dana@academy.test', 'correct horse')).resolves.toEqual(ACCOUNT);
    for (let i = 0; i < 4; i++) await expect(service.verifyPassword('dana@academy.test', 'wrong')).resolves.toBeNull();
  });

  it('does not count an attempt that failed for the server (the database is down)', async () => {
    const { service, repository } = await serviceWith('correct horse');
    repository.findCredentialsByEmail.mockRejectedValue(new Error('connect ECONNREFUSED'));
    for (let i = 0; i < 10; i++) await expect(service.verifyPassword('dana@academy.test', 'x')).rejects.toThrow('ECONNREFUSED');
    repository.findCredentialsByEmail.mockReset();
    repository.findCredentialsByEmail.mockImplementation(async () => null);
    await expect(service.verifyPassword('dana@academy.test', 'x')).resolves.toBeNull();
  });

  it('locks after a burst of parallel guesses no later than its cap of attempts under way', async () => {
    const { service } = await serviceWith('correct horse', throttleWith({ LOGIN_MAX_CONCURRENT_PER_ACCOUNT: '4' }));
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => service.verifyPassword('dana@academy.test', 'wrong')));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(4);
    await expect(service.verifyPassword('dana@academy.test', 'correct horse')).rejects.toThrow(LoginThrottledError);
  });

  it('lets parallel sign-ins of one account with the right password through', async () => {
    const { service } = await serviceWith('correct horse', throttleWith({ LOGIN_MAX_CONCURRENT_PER_ACCOUNT: '8' }));
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => service.verifyPassword('dana@academy.test', 'correct horse')));
    expect(outcomes).toEqual(Array(8).fill(ACCOUNT));
  });
});

describe('AccountsService.verifyPassword: security events', () => {
  const origin = { address: '203.0.113.7', clientId: 'client-1' };

  it('records a sign-in for the account’s school, by the user, with the address and the client', async () => {
    const { service, recorded } = await serviceWith('correct horse');
    await service.verifyPassword('dana@academy.test', 'correct horse', origin.address, origin.clientId);
    expect(recorded).toEqual([
      {
        type: 'auth.sign_in.succeeded',
        schoolId: 'demo-school',
        actor: { type: 'user', id: 'user-1' },
        clientId: 'client-1',
        address: '203.0.113.7',
        data: { method: 'password' },
      },
    ]);
  });

  it('records a wrong password for the account’s school and an unknown account platform-wide, never the password nor the email', async () => {
    const { service, recorded } = await serviceWith('correct horse');
    await service.verifyPassword('dana@academy.test', 'wrong horse', origin.address);
    await service.verifyPassword('nobody@academy.test', 'wrong horse', origin.address);
    expect(recorded).toEqual([
      expect.objectContaining({
        type: 'auth.sign_in.failed',
        schoolId: 'demo-school',
        actor: { type: 'user', id: null },
        subject: { type: 'user', id: 'user-1' },
        outcome: 'failure',
        data: { reason: 'wrong_password' },
      }),
      expect.objectContaining({ type: 'auth.sign_in.failed', schoolId: null, subject: null, outcome: 'failure', data: { reason: 'unknown_account' } }),
    ]);
    expect(JSON.stringify(recorded)).not.toMatch(/horse|nobody|dana@/);
  });

  it('records the failure that locks the account, not the attempts refused while it is locked', async () => {
    const { service, recorded } = await serviceWith('correct horse');
    for (let i = 0; i < 4; i++) await service.verifyPassword('dana@academy.test', 'wrong', origin.address);
    await expect(service.verifyPassword('dana@academy.test', 'wrong', origin.address)).rejects.toThrow(LoginThrottledError);
    expect(recorded.map((event) => event.type)).toEqual([...Array(4).fill('auth.sign_in.failed'), 'auth.sign_in.throttled']);
    expect(recorded[4]).toMatchObject({
      schoolId: 'demo-school',
      actor: { type: 'system', id: null },
      subject: { type: 'user', id: 'user-1' },
      data: { scope: 'account', retry_after_seconds: 60 },
    });
  });
});

describe('password hashing', () => {
  it('uses argon2id and never stores the password', async () => {
    const hash = await password.hashPassword('demo-password');
    expect(hash).toMatch(/^\$argon2id\$/);
    expect(hash).not.toContain('demo-password');
    await expect(password.verifyPasswordHash(hash, 'demo-password')).resolves.toBe(true);
  });

  it('treats an unreadable stored hash as a mismatch', async () => {
    await expect(password.verifyPasswordHash('not-a-hash', 'x')).resolves.toBe(false);
  });
});
