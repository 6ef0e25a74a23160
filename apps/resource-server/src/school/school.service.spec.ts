import { mergeSettings } from './school.service';

describe('mergeSettings', () => {
  it('adds, replaces and removes keys', () => {
    expect(mergeSettings({ a: 1, b: 'x', c: true }, { b: 'y', c: null, d: false })).toEqual({ a: 1, b: 'y', d: false });
  });

  it('refuses to grow past 100 keys', () => {
    const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, i]));
    expect(() => mergeSettings(many, { one_more: 1 })).toThrow(/^settings: /);
    expect(mergeSettings(many, { k1: 2 })).toHaveProperty('k1', 2);
  });
});
