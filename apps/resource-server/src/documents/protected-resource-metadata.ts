import { DEFAULT_RESOURCE_NAME, type DocumentsOptions, RESOURCE_PATHS } from './documents-options';

/** RFC 9728 §2 protected resource metadata, the members this resource publishes. */
export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported: string[];
  bearer_methods_supported: ['header'];
  resource_name: string;
  resource_documentation: string;
}

/**
 * One document for both well-known URLs. RFC 9728 §3.3: "The value of the resource metadata
 * parameter MUST be identical to the protected resource's resource identifier value into which
 * the well-known URI path suffix was inserted". Read strictly, the document fetched at
 * `/.well-known/oauth-protected-resource/mcp` would name `{base}/mcp`. This platform has one
 * protected resource, though: the authorization server binds every URI under the origin
 * (`/mcp`, `/api/v1`) to the canonical `{base}` (RFC 8707 audience), and one token serves the
 * API and /mcp. Naming `{base}/mcp` would advertise a second resource that does not exist, and
 * a client that asked for it would still receive a token whose audience is `{base}`. So both
 * URLs serve the canonical resource. The path-suffixed URL exists because the MCP
 * authorization specification has clients try the path-aware well-known URI of the MCP
 * endpoint first; MCP clients accept a `resource` that is the MCP endpoint's URL or a prefix
 * of it (the SDK's `checkResourceAllowed` compares origin and path prefix), and then request
 * their token for `{base}`.
 */
export function buildProtectedResourceMetadata(options: DocumentsOptions): ProtectedResourceMetadata {
  const base = options.publicBaseUrl;
  return {
    // §2: "resource: REQUIRED. The protected resource's resource identifier" (no trailing slash: RFC 8707 canonical form).
    resource: base,
    // §2: "authorization_servers: OPTIONAL. JSON array containing a list of OAuth authorization server issuer identifiers".
    authorization_servers: [options.issuer],
    scopes_supported: Object.keys(options.scopes),
    // §2: the methods of RFC 6750 accepted; only the Authorization header (no form body, no query).
    bearer_methods_supported: ['header'],
    resource_name: options.resourceName ?? DEFAULT_RESOURCE_NAME,
    resource_documentation: `${base}${RESOURCE_PATHS.authGuide}`,
  };
}
