import type { OAuthError } from './oauth-error';

/**
 * What a layer below the OAuth vocabulary knows about its own failures: the OAuth error a thrown
 * value means (a database that is down is temporarily_unavailable, text the database refuses is
 * invalid_request), or undefined when the value is none of that layer's. The data layer's codes live
 * with the data layer (libs/database-errors), not here.
 */
export type ErrorClassifier = (error: unknown) => OAuthError | undefined;

const classifiers = new Set<ErrorClassifier>();

/**
 * Registers a classifier for every toOAuthError of this process: the exception filters, the
 * authorize pages and the bearer guard all use it without being told. A service registers its
 * own once at bootstrap; registering the same function again is a no-op. Returns the unregistration.
 */
export function registerErrorClassifier(classifier: ErrorClassifier): () => void {
  classifiers.add(classifier);
  return () => {
    classifiers.delete(classifier);
  };
}

/** The first registered classifier's answer, in the order they were registered. */
export function classifyRegistered(error: unknown): OAuthError | undefined {
  for (const classify of classifiers) {
    const classified = classify(error);
    if (classified !== undefined) return classified;
  }
  return undefined;
}

/** How deep a chain of `cause`s is followed (drivers wrap each other a few levels at most). */
const MAX_CAUSE_DEPTH = 5;

/** The thrown value, then its `cause`, then that one's, ...: the objects a classifier looks at. */
export function* causeChain(error: unknown): Generator<object> {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && typeof current === 'object' && current !== null; depth++) {
    yield current;
    current = (current as { cause?: unknown }).cause;
  }
}

/** The string `code` of any error in the chain that is in `codes`. */
export function hasCodeInChain(error: unknown, codes: ReadonlySet<string>): boolean {
  for (const link of causeChain(error)) {
    const code = (link as { code?: unknown }).code;
    if (typeof code === 'string' && codes.has(code)) return true;
  }
  return false;
}

/** The internal detail an OAuth error built from a thrown value carries (logged, never returned). */
export function internalDetailOf(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
