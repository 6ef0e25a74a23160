import { NotFoundError, OAuthError } from '@platform/oauth-errors';

/** 409: the change conflicts with the current state (a duplicate slug, the last owner). */
export class ConflictError extends OAuthError {
  readonly error = 'conflict';
  readonly status = 409;
}

/** 404 `not_found` for a missing item, or one the caller may not see: the two look the same. */
export function notFound(what: string): NotFoundError {
  return new NotFoundError(`No such ${what}`);
}

/** The Prisma error code (P2002, P2025...) of a failed query, if it is one. */
export function prismaCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
    if (typeof code === 'string' && /^P\d{4}$/.test(code)) return code;
  }
  return undefined;
}

export interface WriteOutcomes {
  /** The item to update or delete does not exist in the caller's school (P2025). */
  notFound: string;
  /** A unique constraint refused the row (P2002): a 409 with this description, or this error. */
  conflict?: string | OAuthError;
  /**
   * A foreign key refused the change (P2003): a reference to nothing (give the 400 naming the
   * field) or a row still referenced (a 409 description).
   */
  reference?: string | OAuthError;
}

function outcome(given: string | OAuthError | undefined, fallback: string): OAuthError {
  if (given instanceof OAuthError) return given;
  return new ConflictError(given ?? fallback);
}

/**
 * Runs a write and turns the database's refusals into API errors. Updates and deletes go
 * through the (school_id, id) unique key, so another school's item is "not found" too.
 */
export async function write<T>(operation: () => Promise<T>, outcomes: WriteOutcomes): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    switch (prismaCode(error)) {
      case 'P2025':
        throw notFound(outcomes.notFound);
      case 'P2002':
        throw outcome(outcomes.conflict, 'The change conflicts with an existing item');
      case 'P2003':
        throw outcome(outcomes.reference, 'The item is referenced by other items');
      default:
        throw error;
    }
  }
}
