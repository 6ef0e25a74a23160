import {
  type HexColor,
  NON_TEXT_CONTRAST,
  TEXT_CONTRAST,
  WHITE,
  contrastRatio,
  mix,
  parseHexColor,
  readableOn,
  relativeLuminance,
  withContrast,
} from './color';

/** A school's appearance as the resource server describes it; every field is untrusted. */
export interface ThemeInput {
  primary?: unknown;
  accent?: unknown;
  background?: unknown;
  text?: unknown;
  font?: unknown;
}

/**
 * The page palette. Only `brand` (the primary button) and `accent` (a decorative stripe) are
 * the school's colors as given; every color that carries text or marks a control is derived
 * so that it meets WCAG AA on the background it is drawn on.
 */
export interface Theme {
  scheme: 'light' | 'dark';
  /** Around the card: the school's background tinted with its primary color. */
  backdrop: HexColor;
  /** The card: the school's background color. */
  surface: HexColor;
  /** Body text: ≥ 4.5:1 on surface and backdrop. */
  ink: HexColor;
  /** Secondary text (lead, notes, scope names): ≥ 4.5:1 on surface and backdrop. */
  muted: HexColor;
  /** Dividers: decorative. */
  line: HexColor;
  /** Borders of the form fields: ≥ 3:1 on surface (WCAG 1.4.11). */
  field: HexColor;
  /** The primary button: the school's primary color, unchanged. */
  brand: HexColor;
  /** Text on the primary button: ≥ 4.5:1 on brand and brandHover. */
  onBrand: HexColor;
  brandHover: HexColor;
  /** The brand color where it is text or an outline on the card (secondary button, focus ring): ≥ 4.5:1 on surface. */
  brandInk: HexColor;
  /** The secondary button's hover background (brandInk stays ≥ 4.5:1 on it). */
  subtle: HexColor;
  /** A decorative stripe on the card. */
  accent: HexColor;
  /** A CSS font-family list: the school's font (if installed; nothing is downloaded), then system fonts. */
  font: string;
}

/** The platform's own look, for pages that show no school and when the school's theme is unavailable. */
export const NEUTRAL_COLORS = { primary: '#3a3ab8', accent: '#3a3ab8', background: '#ffffff', text: '#1f2933' } as const;

export const SYSTEM_FONTS = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';

const GENERIC_FAMILIES = new Set(['serif', 'sans-serif', 'monospace', 'cursive', 'fantasy', 'system-ui', 'ui-serif', 'ui-sans-serif', 'ui-monospace', 'ui-rounded']);
/** Letters, digits, spaces and hyphens: nothing that can end a declaration or a quoted string. */
const FAMILY_NAME = /^[A-Za-z0-9][A-Za-z0-9 -]{0,62}$/;

/** The school's font families that are safe to put in CSS, quoted, followed by the system fonts. */
export function fontStack(value: unknown): string {
  if (typeof value !== 'string' || value.length > 200) return SYSTEM_FONTS;
  const families = value
    .split(',')
    .map((family) => family.trim().replace(/^(["'])(.*)\1$/, '$2').trim())
    .filter((family) => FAMILY_NAME.test(family))
    .slice(0, 4)
    .map((family) => (GENERIC_FAMILIES.has(family.toLowerCase()) ? family.toLowerCase() : `"${family}"`));
  return [...families, SYSTEM_FONTS].join(', ');
}

export function buildTheme(input: ThemeInput = {}): Theme {
  const brand = parseHexColor(input.primary) ?? NEUTRAL_COLORS.primary;
  const surface = parseHexColor(input.background) ?? NEUTRAL_COLORS.background;
  const wantedInk = parseHexColor(input.text) ?? NEUTRAL_COLORS.text;
  const ink = readableOn([surface], [wantedInk, NEUTRAL_COLORS.text, WHITE]);
  // Black or white always reaches 4.5:1 on one color, not always on two: the tint is dropped
  // when the text would not stay readable on it.
  const tinted = mix(surface, brand, 0.07);
  const backdrop = contrastRatio(ink, tinted) >= TEXT_CONTRAST ? tinted : surface;
  const grounds = [surface, backdrop];

  // As light as it can be while still reaching 4.5:1: grey, not merely a second black.
  const muted = lightestReadable(ink, surface, grounds, TEXT_CONTRAST, [0.45, 0.4, 0.35, 0.3, 0.25, 0.2, 0.15, 0.1, 0.05]);
  const field = lightestReadable(ink, surface, [surface], NON_TEXT_CONTRAST, [0.6, 0.55, 0.5, 0.45, 0.4, 0.3, 0.2, 0.1]);

  const onBrand = readableOn([brand], [WHITE, surface, ink]);
  // Hover moves the button away from its label's color, so the label only gains contrast.
  const brandHover = mix(brand, relativeLuminance(onBrand) > 0.5 ? '#000000' : WHITE, 0.15);
  const brandInk = withContrast(brand, [surface]);
  const hovered = mix(surface, brand, 0.08);
  const subtle = contrastRatio(brandInk, hovered) >= TEXT_CONTRAST ? hovered : surface;

  return {
    scheme: relativeLuminance(surface) < 0.2 ? 'dark' : 'light',
    backdrop,
    surface,
    ink,
    muted,
    line: mix(ink, surface, 0.85),
    field,
    brand,
    onBrand: contrastRatio(onBrand, brandHover) >= TEXT_CONTRAST ? onBrand : readableOn([brand, brandHover], [onBrand]),
    brandHover,
    brandInk,
    subtle,
    accent: parseHexColor(input.accent) ?? brand,
    font: fontStack(input.font),
  };
}

function lightestReadable(
  ink: HexColor,
  surface: HexColor,
  grounds: readonly HexColor[],
  minimum: number,
  amounts: readonly number[],
): HexColor {
  for (const amount of amounts) {
    const candidate = mix(ink, surface, amount);
    if (grounds.every((ground) => contrastRatio(candidate, ground) >= minimum)) return candidate;
  }
  return ink;
}

export const NEUTRAL_THEME: Theme = buildTheme();

/**
 * The theme as CSS custom properties for the page's `style` attribute. Every value is a
 * validated `#rrggbb` or a font list built from validated names, so nothing in it can end the
 * declaration; the template escapes the attribute as usual.
 */
export function themeStyle(theme: Theme): string {
  const properties: [string, string][] = [
    ['--backdrop', theme.backdrop],
    ['--surface', theme.surface],
    ['--ink', theme.ink],
    ['--muted', theme.muted],
    ['--line', theme.line],
    ['--field', theme.field],
    ['--brand', theme.brand],
    ['--on-brand', theme.onBrand],
    ['--brand-hover', theme.brandHover],
    ['--brand-ink', theme.brandInk],
    ['--subtle', theme.subtle],
    ['--accent', theme.accent],
    ['--font', theme.font],
    ['color-scheme', theme.scheme],
  ];
  return properties.map(([name, value]) => `${name}: ${value}`).join('; ');
}
