import fc from 'fast-check';
import { BLACK, type HexColor, WHITE, contrastRatio, mix, parseHexColor, readableOn, relativeLuminance, withContrast } from './color';

const hexColor = fc
  .tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }))
  .map(([r, g, b]) => `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}` as HexColor);

describe('parseHexColor', () => {
  it.each([
    ['#fff', '#ffffff'],
    ['#4F46E5', '#4f46e5'],
    ['#0a0', '#00aa00'],
    [' #112233 ', '#112233'],
  ])('accepts %j as %s', (input, expected) => {
    expect(parseHexColor(input)).toBe(expected);
  });

  it.each([
    ['a color name', 'red'],
    ['rgb()', 'rgb(0, 0, 0)'],
    ['four digits', '#ffff'],
    ['five digits', '#12345'],
    ['seven digits', '#1234567'],
    ['#rrggbbaa', '#11223344'],
    ['no hash', '112233'],
    ['non-hex digits', '#ggg'],
    ['a CSS injection', '#fff; background: url(https://evil.example/x)'],
    ['a url()', 'url(https://evil.example/x)'],
    ['an empty string', ''],
    ['a number', 0xffffff],
    ['null', null],
    ['undefined', undefined],
  ])('refuses %s', (_, input) => {
    expect(parseHexColor(input)).toBeUndefined();
  });
});

describe('relative luminance and contrast ratio (WCAG 2.2)', () => {
  it('is 0 for black and 1 for white', () => {
    expect(relativeLuminance(BLACK)).toBe(0);
    expect(relativeLuminance(WHITE)).toBeCloseTo(1, 10);
    expect(relativeLuminance('#808080')).toBeCloseTo(0.2159, 4);
  });

  it.each([
    [BLACK, WHITE, 21],
    [WHITE, WHITE, 1],
    ['#767676', WHITE, 4.54], // the lightest grey that passes AA on white
    ['#777777', WHITE, 4.48], // ... and the one that famously does not
    ['#4f46e5', WHITE, 6.29], // the demo school's primary color under white text
    ['#ff0000', WHITE, 4.0],
  ] as const)('%s on %s is %d:1', (a, b, ratio) => {
    expect(contrastRatio(a, b)).toBeCloseTo(ratio, 2);
    expect(contrastRatio(b, a)).toBeCloseTo(ratio, 2);
  });

  it('mixes channel by channel', () => {
    expect(mix(BLACK, WHITE, 0)).toBe(BLACK);
    expect(mix(BLACK, WHITE, 1)).toBe(WHITE);
    expect(mix('#000000', '#ff8800', 0.5)).toBe('#804400');
  });
});

describe('readable colors', () => {
  it('keeps the first candidate that is readable on every background', () => {
    expect(readableOn([WHITE], ['#777777', '#767676', BLACK])).toBe('#767676');
    expect(readableOn(['#4f46e5'], [WHITE])).toBe(WHITE);
  });

  it('falls back to black or white, whichever reads better', () => {
    expect(readableOn(['#ffff00'], [WHITE])).toBe(BLACK);
    expect(readableOn(['#101010'], [BLACK])).toBe(WHITE);
  });

  it('black or white reaches 4.5:1 on any single color', () => {
    fc.assert(
      fc.property(hexColor, (background) => {
        expect(contrastRatio(readableOn([background], []), background)).toBeGreaterThanOrEqual(4.5);
      }),
    );
  });

  it('moves a brand color just far enough to be readable, and leaves a readable one alone', () => {
    expect(withContrast('#4f46e5', [WHITE])).toBe('#4f46e5');
    const yellow = withContrast('#ffd500', [WHITE]);
    expect(contrastRatio(yellow, WHITE)).toBeGreaterThanOrEqual(4.5);
    expect(yellow).not.toBe(BLACK);
    fc.assert(
      fc.property(hexColor, hexColor, (color, background) => {
        expect(contrastRatio(withContrast(color, [background]), background)).toBeGreaterThanOrEqual(4.5);
      }),
    );
  });
});
