import { chooseSigningKey } from './signing-key-choice';

describe('chooseSigningKey', () => {
  const now = 1_000_000;

  it('signs with the first key of the set once it has been published long enough', () => {
    expect(chooseSigningKey([{ kid: 'new', activeFrom: now - 1 }, { kid: 'old', activeFrom: 0 }], now).kid).toBe('new');
  });

  it('signs with the next key of the set while the first is not yet published long enough (a rotation under way)', () => {
    expect(chooseSigningKey([{ kid: 'new', activeFrom: now + 1 }, { kid: 'old', activeFrom: 0 }], now).kid).toBe('old');
  });

  it('signs with a lone key at once (a first install)', () => {
    expect(chooseSigningKey([{ kid: 'only', activeFrom: now + 600_000 }], now).kid).toBe('only');
  });

  it('signs with the key published first when none is active yet, the set order breaking ties', () => {
    expect(chooseSigningKey([{ kid: 'a', activeFrom: now + 500 }, { kid: 'b', activeFrom: now + 100 }], now).kid).toBe('b');
    expect(chooseSigningKey([{ kid: 'a', activeFrom: now + 100 }, { kid: 'b', activeFrom: now + 100 }], now).kid).toBe('a');
  });

  it('signs with the last key of the set while publication times are unknown (the database not reached yet)', () => {
    expect(chooseSigningKey([{ kid: 'new' }, { kid: 'old' }], now).kid).toBe('old');
  });
});
