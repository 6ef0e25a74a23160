import { z } from 'zod';

/** Field schemas shared by the DTOs: one definition of what a title, slug or price is. */

/** Every route of the API lives under this prefix. */
export const API_PREFIX = 'api/v1';

export const title = z.string().trim().min(1).max(200);
export const shortText = (max = 500) => z.string().max(max);
export const longText = z.string().max(100_000);
export const name = z.string().trim().min(1).max(200);
export const email = z.email().max(320).transform((value) => value.toLowerCase());

export const slug = z
  .string()
  .max(100)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'lowercase letters, digits and single hyphens');

export const currency = z.string().regex(/^[A-Z]{3}$/, 'an ISO 4217 code such as USD');
export const cents = z.number().int().min(0).max(1_000_000_000);
export const httpUrl = z.url({ protocol: /^https?$/ }).max(2_000);
/** An id given in a body or query (a reference to another item of the school). */
export const ref = z.string().min(1).max(200);

/** RFC 3339 date-time with an offset, parsed to a Date. */
export const dateTime = z.iso.datetime({ offset: true }).transform((value) => new Date(value));

/** `true` / `false` in a query string. */
export const queryFlag = z.enum(['true', 'false']).transform((value) => value === 'true');

/** A URL-safe slug from a title: "Intro to SQL!" -> "intro-to-sql". */
export function slugify(text: string): string {
  const slugged = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ß/g, 'ss')
    .toLowerCase()
    // Runs of anything else become one hyphen, so at most one can lead or trail.
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 80)
    .replace(/-$/, '');
  return slugged || 'item';
}

/** Output side: dates are RFC 3339 strings in UTC. */
export const isoOut = z.iso.datetime();
export const iso = (date: Date): string => date.toISOString();
export const isoOrNull = (date: Date | null): string | null => (date ? date.toISOString() : null);

/**
 * `published_at` follows `published`: set at the first publication (kept when an already
 * published item is saved again), cleared when the item is unpublished.
 */
export function publication(published: boolean | undefined, current: Date | null): { publishedAt?: Date | null } {
  if (published === true) return { publishedAt: current ?? new Date() };
  if (published === false) return { publishedAt: null };
  return {};
}

/**
 * The `where` of a flag with a public side (published, active, is_public): the public sees
 * only flagged items; `requested` is the caller's own filter. Both apply, so an anonymous
 * `?published=false` is an empty list rather than the published items.
 */
export function flagFilter<K extends string>(field: K, publicOnly: boolean, requested: boolean | undefined) {
  return {
    AND: [
      ...(publicOnly ? [{ [field]: true } as Record<K, boolean>] : []),
      ...(requested !== undefined ? [{ [field]: requested } as Record<K, boolean>] : []),
    ],
  };
}
