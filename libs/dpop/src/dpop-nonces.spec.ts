import { DpopNonces } from './dpop-nonces';

describe('DpopNonces', () => {
  const secret = new Uint8Array(32).fill(3);
  let now = 1_750_000_000_000;
  const nonces = new DpopNonces(secret, 60, () => now);

  it('accepts its own nonce from another replica holding the same secret', () => {
    expect(new DpopNonces(Uint8Array.from(secret), 60, () => now).accepts(nonces.current())).toBe(true);
  });

  it('refuses a nonce made with another secret', () => {
    expect(nonces.accepts(new DpopNonces(new Uint8Array(32).fill(4), 60, () => now).current())).toBe(false);
  });

  it('accepts the previous step and refuses older or later ones', () => {
    const issued = nonces.current();
    now += 60_000;
    expect(nonces.accepts(issued)).toBe(true);
    now += 60_000;
    expect(nonces.accepts(issued)).toBe(false);
    const future = new DpopNonces(secret, 60, () => now + 60_000).current();
    expect(nonces.accepts(future)).toBe(false);
  });

  it.each([[''], ['.'], ['abc'], ['1.2'], ['x'.repeat(100)]])('refuses the malformed nonce %j', (nonce) => {
    expect(nonces.accepts(nonce)).toBe(false);
  });

  it('refuses a short secret', () => {
    expect(() => new DpopNonces(new Uint8Array(16), 60)).toThrow(/32 bytes/);
  });
});
