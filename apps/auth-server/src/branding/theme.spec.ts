import fc from 'fast-check';
import { type HexColor, contrastRatio } from './color';
import { NEUTRAL_COLORS, NEUTRAL_THEME, SYSTEM_FONTS, type Theme, buildTheme, fontStack, themeStyle } from './theme';

const hexColor = fc
  .tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }))
  .map(([r, g, b]) => `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}` as HexColor);

/** Every promise the theme makes about contrast. */
function expectReadable(theme: Theme): void {
  for (const ground of [theme.surface, theme.backdrop]) {
    expect(contrastRatio(theme.ink, ground)).toBeGreaterThanOrEqual(4.5);
    expect(contrastRatio(theme.muted, ground)).toBeGreaterThanOrEqual(4.5);
  }
  expect(contrastRatio(theme.onBrand, theme.brand)).toBeGreaterThanOrEqual(4.5);
  expect(contrastRatio(theme.onBrand, theme.brandHover)).toBeGreaterThanOrEqual(4.5);
  expect(contrastRatio(theme.brandInk, theme.surface)).toBeGreaterThanOrEqual(4.5);
  expect(contrastRatio(theme.brandInk, theme.subtle)).toBeGreaterThanOrEqual(4.5);
  expect(contrastRatio(theme.field, theme.surface)).toBeGreaterThanOrEqual(3);
}

describe('buildTheme', () => {
  it("keeps the demo school's colors where they are readable", () => {
    const theme = buildTheme({ primary: '#4f46e5', accent: '#f97316', background: '#ffffff', text: '#0f172a', font: 'Inter' });
    expect(theme).toMatchObject({
      brand: '#4f46e5',
      onBrand: '#ffffff',
      brandInk: '#4f46e5',
      surface: '#ffffff',
      ink: '#0f172a',
      accent: '#f97316',
      scheme: 'light',
    });
    expect(theme.font).toBe(`"Inter", ${SYSTEM_FONTS}`);
    expectReadable(theme);
  });

  it('cannot be made unreadable: white text on a white card with a white button', () => {
    const theme = buildTheme({ primary: '#fff', background: '#fff', text: '#fff' });
    expect(theme.brand).toBe('#ffffff');
    expect(theme.ink).toBe(NEUTRAL_COLORS.text);
    expect(theme.onBrand).toBe(NEUTRAL_COLORS.text);
    expectReadable(theme);
  });

  it('turns dark with a dark background, and picks light text', () => {
    const theme = buildTheme({ primary: '#0f766e', background: '#111111', text: '#222222' });
    expect(theme.scheme).toBe('dark');
    expect(theme.ink).toBe('#ffffff');
    expectReadable(theme);
  });

  it('replaces every invalid color by the neutral one', () => {
    const theme = buildTheme({ primary: 'red', accent: 'url(x)', background: '#ffff', text: '#fff; color: red', font: 42 });
    expect(theme).toEqual(NEUTRAL_THEME);
    expect(NEUTRAL_THEME.brand).toBe(NEUTRAL_COLORS.primary);
  });

  it('keeps every contrast promise for any colors at all', () => {
    fc.assert(
      fc.property(hexColor, hexColor, hexColor, (primary, background, text) => {
        expectReadable(buildTheme({ primary, background, text }));
      }),
      { numRuns: 500 },
    );
  });
});

describe('fontStack', () => {
  it.each([
    ['Inter', `"Inter", ${SYSTEM_FONTS}`],
    ['Source Sans 3', `"Source Sans 3", ${SYSTEM_FONTS}`],
    [`'Georgia', serif`, `"Georgia", serif, ${SYSTEM_FONTS}`],
    [`Inter"; } body { display: none } x{ "`, SYSTEM_FONTS],
    ['Inter; color: red', SYSTEM_FONTS],
    ['url(https://evil.example/font.woff)', SYSTEM_FONTS],
    [null, SYSTEM_FONTS],
  ])('%j becomes %j', (input, expected) => {
    expect(fontStack(input)).toBe(expected);
  });
});

describe('themeStyle', () => {
  it('is a list of declarations whose values cannot end a declaration', () => {
    const style = themeStyle(buildTheme({ primary: '#4f46e5', font: 'Inter' }));
    expect(style).toContain('--brand: #4f46e5');
    for (const declaration of style.split('; ')) {
      expect(declaration).toMatch(/^(--[a-z-]+|color-scheme): [#a-z0-9 ,"-]+$/i);
    }
  });
});
