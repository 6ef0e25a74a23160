import { NEUTRAL_THEME, type Theme, buildTheme } from './theme';

/** The platform's own name: before sign-in without a school, and whenever the school's branding is unavailable. */
export const DEFAULT_BRAND_NAME = 'Course Platform';

export interface BrandLogo {
  url: string;
  alt: string;
  /** The CSP source that allows exactly this image's origin (img-src). */
  cspSource: string;
}

/** What a page shows of a school: its name, its theme and its logo. */
export interface Branding {
  name: string;
  theme: Theme;
  logo?: BrandLogo;
}

export const DEFAULT_BRANDING: Branding = Object.freeze({ name: DEFAULT_BRAND_NAME, theme: NEUTRAL_THEME });

/** The parts of `GET /api/v1/school` the pages use. */
export interface SchoolProfile {
  name?: unknown;
}

/** The parts of `GET /api/v1/appearance` the pages use. */
export interface SchoolAppearance {
  primary_color?: unknown;
  accent_color?: unknown;
  background_color?: unknown;
  text_color?: unknown;
  font_family?: unknown;
  logo_url?: unknown;
}

const MAX_NAME_LENGTH = 100;

/** The school's name for a heading: trimmed, single-spaced, at most 100 characters; undefined when empty. */
export function schoolName(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  // Control characters (and C1) become spaces: they have no business in a heading.
  // eslint-disable-next-line no-control-regex
  const name = value.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').replace(/\s+/g, ' ').trim();
  if (!name) return undefined;
  return name.length > MAX_NAME_LENGTH ? `${name.slice(0, MAX_NAME_LENGTH - 1)}…` : name;
}

/** A DNS name or IPv4 address: what a CSP host-source can name (it has no IPv6 literals). */
const CSP_SAFE_HOST = /^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$/;

/**
 * The logo only from https, or from the pages' own public origin (where the platform serves
 * uploaded files): an http URL elsewhere would be mixed content on an https origin and a
 * tracking pixel on an http one. Relative URLs resolve against the public origin. The CSP
 * source is the URL's origin, and only for hosts whose name cannot smuggle CSP syntax
 * (WHATWG URLs allow `;` and `,` in host names).
 */
export function acceptLogoUrl(value: unknown, publicOrigin: string): Omit<BrandLogo, 'alt'> | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2048) return undefined;
  let url: URL;
  try {
    url = new URL(value, publicOrigin);
  } catch {
    return undefined;
  }
  if (url.username || url.password) return undefined;
  const sameOrigin = url.origin === new URL(publicOrigin).origin;
  if (!sameOrigin && url.protocol !== 'https:') return undefined;
  if (!CSP_SAFE_HOST.test(url.hostname)) return undefined;
  return { url: url.href, cspSource: url.origin };
}

/**
 * A school's branding from its public profile and appearance. Without a usable name there is
 * nothing to show of the school; without an appearance its name comes with the neutral theme.
 */
export function toBranding(profile: SchoolProfile | undefined, appearance: SchoolAppearance | undefined, publicOrigin: string): Branding {
  const name = schoolName(profile?.name);
  if (!name) return DEFAULT_BRANDING;
  if (!appearance) return { name, theme: NEUTRAL_THEME };
  const theme = buildTheme({
    primary: appearance.primary_color,
    accent: appearance.accent_color,
    background: appearance.background_color,
    text: appearance.text_color,
    font: appearance.font_family,
  });
  const logo = acceptLogoUrl(appearance.logo_url, publicOrigin);
  return { name, theme, ...(logo ? { logo: { ...logo, alt: `${name} logo` } } : {}) };
}
