import { InvalidRequestError } from '@platform/oauth-errors';
import { z } from 'zod';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** `?limit=&cursor=`, shared by every list. */
export const pageQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE_SIZE)
    .default(DEFAULT_PAGE_SIZE)
    .describe(`Items per page (1-${MAX_PAGE_SIZE})`),
  cursor: z.string().min(1).max(512).optional().describe('The next_cursor of the previous page'),
});

export type PageQuery = z.infer<typeof pageQuery>;

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/**
 * A cursor is the sort key of the last item of a page: `[id]`, or `[position, id]` for the
 * lists kept in a chosen order. It is opaque to clients (base64url JSON) and only ever used
 * as a keyset bound (`WHERE key > cursor`), so a forged cursor can only skip items the caller
 * could list anyway; it never selects a school or a filter.
 */
export type CursorKey = readonly [string] | readonly [number, string];

export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

const idKey = z.tuple([z.string().min(1).max(200)]);
const positionKey = z.tuple([z.number().int(), z.string().min(1).max(200)]);

function decode<T>(cursor: string, shape: z.ZodType<T>): T {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  const parsed = shape.safeParse(value);
  if (!parsed.success) throw new InvalidRequestError('cursor: not a cursor this list issued');
  return parsed.data;
}

/** Page bounds for a list ordered by id. */
export interface IdPage {
  take: number;
  afterId?: string;
}

/** Page bounds for a list ordered by (position, id). */
export interface PositionPage {
  take: number;
  after?: { position: number; id: string };
}

export function idPage(query: PageQuery): IdPage {
  return { take: query.limit, afterId: query.cursor === undefined ? undefined : decode(query.cursor, idKey)[0] };
}

export function positionPage(query: PageQuery): PositionPage {
  if (query.cursor === undefined) return { take: query.limit };
  const [position, id] = decode(query.cursor, positionKey);
  return { take: query.limit, after: { position, id } };
}

/** Prisma `where` for the rows after an id-ordered cursor. */
export function afterId(page: IdPage): { id?: { gt: string } } {
  return page.afterId === undefined ? {} : { id: { gt: page.afterId } };
}

/** Prisma `where` for the rows after a (position, id)-ordered cursor. */
export function afterPosition(page: PositionPage) {
  if (!page.after) return {};
  const { position, id } = page.after;
  return { OR: [{ position: { gt: position } }, { position, id: { gt: id } }] };
}

/**
 * Repositories fetch `take + 1` rows: the extra one only says whether a next page exists.
 * The cursor is the key of the last row returned.
 */
export function toPage<Row, T>(rows: Row[], take: number, key: (row: Row) => CursorKey, view: (row: Row) => T): Page<T> {
  const pageRows = rows.slice(0, take);
  const last = pageRows.at(-1);
  return {
    data: pageRows.map(view),
    next_cursor: rows.length > take && last !== undefined ? encodeCursor(key(last)) : null,
  };
}

export const byId = (row: { id: string }): CursorKey => [row.id];
export const byPosition = (row: { position: number; id: string }): CursorKey => [row.position, row.id];
