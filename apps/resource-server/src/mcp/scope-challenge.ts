import { type AuthPrincipal, type ChallengeContext, isTokenPrincipal, MissingTokenError, type TokenScheme, withChallenge } from '@platform/bearer-auth';
import { InsufficientScopeError, type OAuthError } from '@platform/oauth-errors';
import type { Scope } from '@platform/scopes';
import { missingScopes, toolNamed } from './tools';

/**
 * The MCP step-up, decided before the message reaches the MCP server: a `tools/call` of a tool
 * whose scopes the caller lacks is answered at the HTTP level, as the MCP authorization
 * specification's "Scope challenge handling" (SEP-835) asks:
 * - no token: 401 with `WWW-Authenticate: Bearer scope="…", resource_metadata="…", DPoP …`
 *   ("MCP servers MUST use the HTTP header WWW-Authenticate when returning a 401");
 * - a token without them: 403 `error="insufficient_scope"`, `scope=` every scope the call
 *   needs (not only the missing ones, so the token the client obtains next is enough on its
 *   own), and `resource_metadata`, in the scheme the token came with (Bearer or DPoP).
 * The client then authorizes again for those scopes and retries the call. A batch (2025-03-26)
 * is challenged for the union of what its calls need. The header comes from the one builder
 * (libs/bearer-auth withChallenge → libs/oauth-errors bearerChallenge).
 */
export function scopeChallenge(body: unknown, principal: AuthPrincipal, context: ChallengeContext, scheme?: TokenScheme): OAuthError | undefined {
  const messages = Array.isArray(body) ? body : [body];
  const needed = new Set<Scope>();
  const tools: string[] = [];
  for (const message of messages) {
    const tool = toolCalled(message);
    if (tool === undefined || missingScopes(tool, principal).length === 0) continue;
    tools.push(tool.name);
    for (const scope of tool.scopes) needed.add(scope);
  }
  if (needed.size === 0) return undefined;
  const scopes = [...needed];
  const error = isTokenPrincipal(principal)
    ? new InsufficientScopeError(scopes)
    : new MissingTokenError(`The tool ${tools.join(', ')} needs an access token with scope ${scopes.join(' ')}`);
  return withChallenge(error, scopes, context, scheme);
}

function toolCalled(message: unknown) {
  if (typeof message !== 'object' || message === null) return undefined;
  const { method, params } = message as { method?: unknown; params?: { name?: unknown } };
  if (method !== 'tools/call' || typeof params !== 'object' || params === null) return undefined;
  return toolNamed(params.name);
}
