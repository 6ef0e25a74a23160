import { AccountsRepository, type Account } from './accounts.repository';
import { AccountsService } from './accounts.service';
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

async function serviceWith(storedPassword: string) {
  const hash = await password.hashPassword(storedPassword);
  const repository = {
    findCredentialsByEmail: jest.fn(async (email: string) =>
      email === ACCOUNT.email ? { userId: ACCOUNT.id, passwordHash: hash } : null,
    ),
    findAccountById: jest.fn(async (id: string) => (id === ACCOUNT.id ? ACCOUNT : null)),
    updatePasswordHash: jest.fn(async () => undefined),
  };
  return { service: new AccountsService(repository as unknown as AccountsRepository), repository };
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
    repository.findCredentialsByEmail.mockResolvedValueOnce({ userId: ACCOUNT.id, passwordHash: weak });
    await expect(service.verifyPassword('dana@academy.test', 'correct horse')).resolves.toEqual(ACCOUNT);
    expect(repository.updatePasswordHash).toHaveBeenCalledWith(ACCOUNT.id, expect.stringMatching(/^\$argon2id\$v=19\$(?=.*m=19456)(?=.*t=2)(?=.*p=1)/));
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
