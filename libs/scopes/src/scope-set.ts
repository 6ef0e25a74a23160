import { ALL_SCOPES, SCOPES, type Scope } from './catalogue';

export function isScope(value: string): value is Scope {
  return Object.prototype.hasOwnProperty.call(SCOPES, value);
}

/**
 * Splits an RFC 6749 §3.3 scope string ("space-delimited, case-sensitive strings").
 * Duplicates collapse; the result keeps catalogue order so that stored and
 * displayed scope strings are canonical.
 */
export function parseScopeString(scope: string | undefined | null): string[] {
  if (!scope) return [];
  const requested = new Set(scope.split(' ').filter((token) => token.length > 0));
  const known = ALL_SCOPES.filter((s) => requested.has(s));
  const unknown = [...requested].filter((s) => !isScope(s));
  return [...known, ...unknown];
}

/** The entries of a parsed scope list that are not in the catalogue. */
export function unknownScopes(scopes: readonly string[]): string[] {
  return scopes.filter((s) => !isScope(s));
}

export function formatScopes(scopes: Iterable<string>): string {
  const wanted = new Set(scopes);
  return ALL_SCOPES.filter((s) => wanted.has(s)).join(' ');
}

/** True when every scope of `required` is in `granted`. */
export function hasAllScopes(granted: readonly string[], required: readonly string[]): boolean {
  return required.every((s) => granted.includes(s));
}
