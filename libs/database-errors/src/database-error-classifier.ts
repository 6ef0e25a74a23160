import {
  causeChain,
  type ErrorClassifier,
  hasCodeInChain,
  internalDetailOf,
  InvalidRequestError,
  TemporarilyUnavailableError,
} from '@platform/oauth-errors';

/**
 * The data layer's codes for "the database is not reachable": Prisma's and PostgreSQL's. Node's own
 * socket codes (ECONNREFUSED, ...) are not here: libs/oauth-errors maps those for every peer.
 */
export const DATABASE_UNAVAILABLE_CODES: ReadonlySet<string> = new Set([
  'P1001', // Prisma: can't reach database server
  'P1002', // Prisma: database server timed out
  'P1017', // Prisma: server closed the connection
  'P2024', // Prisma: timed out fetching a connection from the pool
  '57P01', // PostgreSQL admin_shutdown
  '57P03', // PostgreSQL cannot_connect_now
  '08006', // PostgreSQL connection_failure
  '08001', // PostgreSQL sqlclient_unable_to_establish_sqlconnection
]);

/** PostgreSQL refuses a NUL byte or an invalid escape in text: the input was bad, not the server. */
export const BAD_TEXT_CODES: ReadonlySet<string> = new Set([
  '22021', // character_not_in_repertoire (a NUL byte in text)
  '22P05', // untranslatable_character
  '22P02', // invalid_text_representation
]);

/** Prisma's error class when the client could not connect at all (no code of its own to go by). */
const PRISMA_INITIALIZATION_ERROR = 'PrismaClientInitializationError';

/**
 * What node-postgres and pg-pool say when a connection fails, and the socket message Prisma keeps
 * when it wraps the driver's error without its code.
 */
const UNAVAILABLE_MESSAGE =
  /Connection terminated|connect ECONNREFUSED|Client has encountered a connection error|timeout exceeded when trying to connect/;

function isDatabaseUnavailable(error: unknown): boolean {
  if (hasCodeInChain(error, DATABASE_UNAVAILABLE_CODES)) return true;
  for (const link of causeChain(error)) {
    if ((link as { name?: unknown }).name === PRISMA_INITIALIZATION_ERROR) return true;
    const message = (link as { message?: unknown }).message;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) return true;
  }
  return false;
}

/**
 * The data layer's failures in the OAuth vocabulary: text PostgreSQL refuses is the caller's
 * invalid_request (400, never a 500), a database that is down or out of connections is
 * temporarily_unavailable (503). Each service registers it once at bootstrap
 * (registerErrorClassifier); anything else is left to toOAuthError.
 */
export const databaseErrorClassifier: ErrorClassifier = (error) => {
  if (hasCodeInChain(error, BAD_TEXT_CODES)) {
    return new InvalidRequestError('The request contains characters that are not allowed', internalDetailOf(error));
  }
  if (isDatabaseUnavailable(error)) return new TemporarilyUnavailableError(undefined, internalDetailOf(error));
  return undefined;
};
