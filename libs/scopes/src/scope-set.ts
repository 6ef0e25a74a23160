import { AUTHORIZATION_SERVER_SCOPES, PROTOCOL_SCOPES, type ProtocolScope, SCOPES, type Scope, type ScopeGroup } from './catalogue';

/** A scope of the catalogue (a business or OpenID scope that guards something). */
export function isScope(value: string): value is Scope {
  return Object.prototype.hasOwnProperty.call(SCOPES, value);
}

/** A scope the authorization server accepts in a request: the catalogue's or a protocol scope (offline_access). */
export function isRequestableScope(value: string): value is Scope | ProtocolScope {
  return isScope(value) || Object.prototype.hasOwnProperty.call(PROTOCOL_SCOPES, value);
}

/** The words a consent page shows for a requestable scope. */
export function scopeDefinition(value: Scope | ProtocolScope): { description: string; group: ScopeGroup } {
  return isScope(value) ? SCOPES[value] : PROTOCOL_SCOPES[value];
}

/** The scope a write scope includes (its read scope), if any. */
export function includedScope(value: string): string | undefined {
  return isScope(value) ? (SCOPES[value] as { includes?: string }).includes : undefined;
}

/**
 * `scopes` with what each of them includes added (coupons:write brings coupons:read), in
 * canonical order; unknown entries are kept for the caller to refuse. A write scope includes its
 * read scope because writing needs reading: finding the course to edit, the student to enroll,
 * checking what was just saved. Without it every write-then-list costs a second consent round
 * for access the user has in effect already given. The granted scope names both, so a resource
 * server checks exactly what it always did.
 */
export function withIncludedScopes(scopes: Iterable<string>): string[] {
  const all = new Set(scopes);
  for (const scope of [...all]) {
    const included = includedScope(scope);
    if (included) all.add(included);
  }
  return parseScopeString([...all].join(' '));
}

/**
 * Splits an RFC 6749 §3.3 scope string ("space-delimited, case-sensitive strings").
 * Duplicates collapse; the result keeps catalogue order so that stored and
 * displayed scope strings are canonical.
 */
export function parseScopeString(scope: string | undefined | null): string[] {
  if (!scope) return [];
  const requested = new Set(scope.split(' ').filter((token) => token.length > 0));
  const known = AUTHORIZATION_SERVER_SCOPES.filter((s) => requested.has(s));
  const unknown = [...requested].filter((s) => !isRequestableScope(s));
  return [...known, ...unknown];
}

/** The entries of a parsed scope list that the authorization server does not know. */
export function unknownScopes(scopes: readonly string[]): string[] {
  return scopes.filter((s) => !isRequestableScope(s));
}

/** Known scopes (catalogue and protocol ones) in canonical order; unknown ones are dropped. */
export function formatScopes(scopes: Iterable<string>): string {
  const wanted = new Set(scopes);
  return AUTHORIZATION_SERVER_SCOPES.filter((s) => wanted.has(s)).join(' ');
}

/**
 * The one rule for "requested scopes within the allowed ones": the entries of `scopes` that are
 * not in `allowed`, in their order. Used for a refresh request against its grant (RFC 6749 §6),
 * a request against a client's ceiling, a token against what a route or tool needs (RFC 6750 §3.1).
 */
export function scopesOutside<S extends string>(scopes: readonly S[], allowed: readonly string[]): S[] {
  return scopes.filter((scope) => !allowed.includes(scope));
}

/**
 * True when every scope of `required` is in `granted`: `scopesOutside(required, granted)` is
 * empty, answered without building that list (the bearer guard asks on every request).
 */
export function hasAllScopes(granted: readonly string[], required: readonly string[]): boolean {
  for (let i = 0; i < required.length; i++) {
    if (!granted.includes(required[i])) return false;
  }
  return true;
}
