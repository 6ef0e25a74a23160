import { HeldUnderTrust, type TrustJudge } from './held-under-trust';

/** A judge the test moves: trusted in period 1 at first. */
class TestTrust implements TrustJudge {
  private period: number | undefined = 1;
  private readonly handlers: (() => void)[] = [];

  trustPeriod(): number | undefined {
    return this.period;
  }

  onChange(handler: () => void): void {
    this.handlers.push(handler);
  }

  set(period: number | undefined): void {
    this.period = period;
    for (const handler of this.handlers) handler();
  }
}

interface Row {
  id: string;
  ttlMs?: number;
}

/** A source whose reads the test answers one at a time: each read() waits until answer() is called. */
function deferredSource() {
  const pending: Array<(row: Row | null) => void> = [];
  let reads = 0;
  return {
    load: () => {
      reads++;
      return new Promise<Row | null>((resolve) => pending.push(resolve));
    },
    answer: async (row: Row | null) => {
      pending.shift()?.(row);
      // Let the read's continuation (the hold) run.
      await new Promise((resolve) => setImmediate(resolve));
    },
    reads: () => reads,
  };
}

function held(trust: TrustJudge) {
  return new HeldUnderTrust<Row>(trust, { max: 10, ttlMs: 60_000, maxDropped: 10, ttlOf: (row) => row.ttlMs ?? 60_000 });
}

describe('HeldUnderTrust', () => {
  it('holds what a read brought back while trusted: the next read answers from memory', async () => {
    const cache = held(new TestTrust());
    const source = deferredSource();
    const first = cache.read('k', source.load);
    await source.answer({ id: 'k' });
    expect(await first).toEqual({ id: 'k' });
    expect(await cache.read('k', source.load)).toEqual({ id: 'k' });
    expect(cache.peek('k')).toEqual({ id: 'k' });
    expect(source.reads()).toBe(1);
  });

  it('holds nothing while untrusted, and shows nothing held from before', async () => {
    const trust = new TestTrust();
    const cache = held(trust);
    await cache.afterWrite(async () => ({ id: 'k' }), (row) => ({ key: 'k', value: row }));
    trust.set(undefined);
    expect(cache.peek('k')).toBeUndefined();
    const source = deferredSource();
    const read = cache.read('k', source.load);
    await source.answer({ id: 'k' });
    expect(await read).toEqual({ id: 'k' });
    trust.set(2);
    expect(cache.peek('k')).toBeUndefined();
  });

  it('does not hold a value whose read began in another period of trust (an event may have been missed meanwhile)', async () => {
    const trust = new TestTrust();
    const cache = held(trust);
    const source = deferredSource();
    const read = cache.read('k', source.load);
    trust.set(undefined);
    trust.set(2);
    await source.answer({ id: 'k' });
    expect(await read).toEqual({ id: 'k' });
    expect(cache.peek('k')).toBeUndefined();
  });

  it('does not put back a key dropped while its read was under way, nor hold it again for a while', async () => {
    const cache = held(new TestTrust());
    const source = deferredSource();
    const read = cache.read('k', source.load);
    cache.drop('k');
    await source.answer({ id: 'k' });
    await read;
    expect(cache.peek('k')).toBeUndefined();
    expect(cache.wasDropped('k')).toBe(true);
    expect(cache.wasDropped('other')).toBe(false);
    await cache.afterWrite(async () => ({ id: 'k' }), (row) => ({ key: 'k', value: row }));
    expect(cache.peek('k')).toBeUndefined();
  });

  it('holds what a write produced under the period taken before the write', async () => {
    const trust = new TestTrust();
    const cache = held(trust);
    const written = await cache.afterWrite(async () => ({ id: 'a' }), (row) => ({ key: 'a', value: row }));
    expect(written).toEqual({ id: 'a' });
    expect(cache.peek('a')).toEqual({ id: 'a' });

    await cache.afterWrite(
      async () => {
        trust.set(3);
        return { id: 'b' };
      },
      (row) => ({ key: 'b', value: row }),
    );
    expect(cache.peek('b')).toBeUndefined();
    // Trust changed: what was held is forgotten.
    expect(cache.peek('a')).toBeUndefined();
  });

  it('holds neither null nor a value with no lifetime left', async () => {
    const cache = held(new TestTrust());
    expect(await cache.read('none', async () => null)).toBeNull();
    await cache.read('spent', async () => ({ id: 'spent', ttlMs: 0 }));
    expect(cache.peek('spent')).toBeUndefined();
    expect(cache.peek('none')).toBeUndefined();
  });

  it('forgets every value on clear(), and keeps dropped keys out', async () => {
    const cache = held(new TestTrust());
    await cache.read('a', async () => ({ id: 'a' }));
    cache.drop('b');
    cache.clear();
    expect(cache.peek('a')).toBeUndefined();
    expect(cache.wasDropped('b')).toBe(true);
  });
});
