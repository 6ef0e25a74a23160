/**
 * Colors of a school's theme are untrusted input: only `#rgb` and `#rrggbb` are accepted, and
 * every text color is checked against its background with the WCAG 2.2 contrast ratio
 * (https://www.w3.org/TR/WCAG22/#dfn-contrast-ratio), so that no theme can make a page unreadable.
 */

/** A color as `#rrggbb`, lowercase: the only form the rest of the branding code handles. */
export type HexColor = `#${string}`;

/** WCAG 2.2 SC 1.4.3 (AA): body text. */
export const TEXT_CONTRAST = 4.5;
/** WCAG 2.2 SC 1.4.11 (AA): borders of form fields, focus indicators. */
export const NON_TEXT_CONTRAST = 3;

export const BLACK: HexColor = '#000000';
export const WHITE: HexColor = '#ffffff';

const HEX_COLOR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;

/** `#rgb` or `#rrggbb` (any case) as `#rrggbb`; anything else (names, rgb(), url(), `;`) is undefined. */
export function parseHexColor(value: unknown): HexColor | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  if (!HEX_COLOR.test(trimmed)) return undefined;
  const hex = trimmed.slice(1).toLowerCase();
  const full = hex.length === 3 ? [...hex].map((digit) => digit + digit).join('') : hex;
  return `#${full}`;
}

function channels(color: HexColor): [number, number, number] {
  const value = Number.parseInt(color.slice(1), 16);
  return [(value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff];
}

function toHex(rgb: readonly number[]): HexColor {
  return `#${rgb.map((channel) => Math.round(Math.min(255, Math.max(0, channel))).toString(16).padStart(2, '0')).join('')}`;
}

/** WCAG 2.2 relative luminance: 0 for black, 1 for white. */
export function relativeLuminance(color: HexColor): number {
  const [r, g, b] = channels(color).map((channel) => {
    const c = channel / 255;
    // The WCAG 2.x text says 0.03928; 0.04045 is the sRGB standard's value. No 8-bit value lies between.
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** (L1 + 0.05) / (L2 + 0.05) with L1 the lighter: from 1 (same color) to 21 (black on white). */
export function contrastRatio(a: HexColor, b: HexColor): number {
  const [lighter, darker] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x);
  return (lighter + 0.05) / (darker + 0.05);
}

/** `from` moved towards `to` by `amount` (0: from, 1: to), channel by channel in sRGB. */
export function mix(from: HexColor, to: HexColor, amount: number): HexColor {
  const a = channels(from);
  const b = channels(to);
  return toHex(a.map((channel, i) => channel + (b[i] - channel) * amount));
}

const meets = (color: HexColor, backgrounds: readonly HexColor[], minimum: number) =>
  backgrounds.every((background) => contrastRatio(color, background) >= minimum);

/** Whichever of black and white contrasts more with the worst of the backgrounds. */
export function blackOrWhite(backgrounds: readonly HexColor[]): HexColor {
  const worst = (color: HexColor) => Math.min(...backgrounds.map((background) => contrastRatio(color, background)));
  return worst(BLACK) >= worst(WHITE) ? BLACK : WHITE;
}

/**
 * The first candidate readable on every background, or black or white. One of black and white
 * always reaches 4.58:1 against a single color, so the result is readable whatever the theme.
 */
export function readableOn(backgrounds: readonly HexColor[], candidates: readonly HexColor[], minimum = TEXT_CONTRAST): HexColor {
  return candidates.find((candidate) => meets(candidate, backgrounds, minimum)) ?? blackOrWhite(backgrounds);
}

/**
 * `color` itself when it is readable on the backgrounds, otherwise the least change of it that
 * is (moved towards black or white in 5 % steps), so a school's brand color stays recognisable.
 */
export function withContrast(color: HexColor, backgrounds: readonly HexColor[], minimum = TEXT_CONTRAST): HexColor {
  if (meets(color, backgrounds, minimum)) return color;
  const target = blackOrWhite(backgrounds);
  for (let step = 1; step <= 20; step++) {
    const candidate = mix(color, target, step / 20);
    if (meets(candidate, backgrounds, minimum)) return candidate;
  }
  return target;
}
