import { InvalidScopeError } from '@platform/oauth-errors';
import { formatScopes, parseScopeString, scopesOutside, unknownScopes, withIncludedScopes } from '@platform/scopes';

/**
 * What a client's registration says about scope. Two separate things:
 *
 * - `defaultScopes`: RFC 6749 §3.3, "If the client omits the scope parameter when requesting
 *   authorization, the authorization server MUST either process the request using a
 *   pre-defined default value or fail the request". A self-registered client's `scope`
 *   (RFC 7591 §2) is that default, nothing more.
 * - `ceiling`: scopes the client may never be granted beyond, whatever the user approves.
 *   Self-registered clients have none: anyone can register again with every scope, so a
 *   ceiling would protect nothing and would break step-up (a client registered with the scope
 *   of its first challenge re-authorizes for more). The user's consent is what grants.
 *   Clients set up by staff (fixed integrations) can carry one.
 */
export interface ClientScopePolicy {
  readonly defaultScopes: readonly string[];
  /** null: no ceiling; consent decides. */
  readonly ceiling: readonly string[] | null;
}

/**
 * The default for a request without scope from a client that registered none: identity only,
 * never a write scope nor anything of the school's data.
 */
export const LEAST_PRIVILEGE_DEFAULT_SCOPES: readonly string[] = ['openid', 'profile'];

/** The policy of a client registered through RFC 7591: its registered scope is a default, no ceiling. */
export function selfRegisteredScopePolicy(registeredScope: string): ClientScopePolicy {
  return { defaultScopes: parseScopeString(registeredScope), ceiling: null };
}

const MAX_SCOPE_LENGTH = 4096;

/**
 * The scopes an authorization request asks the user for (canonical order). The requested scope
 * if any (an empty one counts as omitted); else the registered default; else the least-privilege
 * default. Each write scope brings the read scope it includes (libs/scopes withIncludedScopes):
 * the user approves both, and the grant and its tokens name both, so resource servers check
 * exactly what they always did. Unknown scopes and scopes beyond a ceiling are invalid_scope
 * (RFC 6749 §4.1.2.1); a ceiling that allows a write scope allows what it includes.
 */
export function resolveRequestedScopes(requested: string | undefined, policy: ClientScopePolicy): string[] {
  if (requested !== undefined && requested.length > MAX_SCOPE_LENGTH) throw new InvalidScopeError('The scope parameter is too long');
  const asked = parseScopeString(requested);
  const scopes = withIncludedScopes(
    asked.length > 0 ? asked : policy.defaultScopes.length > 0 ? policy.defaultScopes : LEAST_PRIVILEGE_DEFAULT_SCOPES,
  );
  const unknown = unknownScopes(scopes);
  if (unknown.length > 0) throw new InvalidScopeError(`Unknown scope: ${listForMessage(unknown)}`);
  if (policy.ceiling !== null) {
    const beyond = scopesOutside(scopes, withIncludedScopes(policy.ceiling));
    if (beyond.length > 0) throw new InvalidScopeError(`This client may not be granted scope: ${listForMessage(beyond)}`);
  }
  return parseScopeString(formatScopes(scopes));
}

/** Echoed request values in error descriptions, bounded. */
function listForMessage(values: readonly string[]): string {
  const shown = values.slice(0, 5).map((value) => (value.length > 64 ? `${value.slice(0, 64)}...` : value));
  return values.length > shown.length ? `${shown.join(' ')} ...` : shown.join(' ');
}
