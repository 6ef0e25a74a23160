import type { SchemaObject } from '@nestjs/swagger';
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
 * One document for both well-known URLs.
 *
 * RFC 9728 §3.1 forms the metadata URL by inserting the well-known string "between the host
 * component and the path and/or query components" of the resource identifier, so
 * `/.well-known/oauth-protected-resource/mcp` is the metadata URL of a resource `{base}/mcp`;
 * and §3.3: "The "resource" value returned MUST be identical to the protected resource's
 * resource identifier value into which the well-known URI path suffix was inserted to create
 * the URL used to retrieve the metadata." Read strictly, that document would name `{base}/mcp`.
 *
 * This platform has one protected resource, though: the authorization server binds every URI
 * under the origin (`/mcp`, `/api/v1`) to the canonical `{base}` (the RFC 8707 audience), and
 * one token serves the API and /mcp. Naming `{base}/mcp` would advertise a second resource
 * that does not exist; a client asking for it would still get a token whose audience is
 * `{base}`. So, by the product's decision, both URLs name the canonical resource, knowingly
 * departing from the letter of §3.3 for the path-suffixed one.
 *
 * The path-suffixed URL exists for MCP clients ("MCP servers MUST implement the OAuth 2.0
 * Protected Resource Metadata (RFC9728) specification to indicate the locations of
 * authorization servers"), which try the path-aware well-known URI of the MCP endpoint before
 * the root one. They accept a `resource` that is the MCP endpoint's URL or a prefix of it (the
 * TypeScript SDK's `checkResourceAllowed` compares the origin and the path prefix) and then
 * request their token for `{base}`.
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

/** The document's schema, for OpenAPI. */
export const PROTECTED_RESOURCE_METADATA_SCHEMA = {
  type: 'object',
  description: 'RFC 9728 §2 protected resource metadata',
  required: ['resource', 'authorization_servers', 'scopes_supported', 'bearer_methods_supported', 'resource_name', 'resource_documentation'],
  properties: {
    resource: { type: 'string', format: 'uri', description: 'The canonical resource identifier' },
    authorization_servers: { type: 'array', items: { type: 'string', format: 'uri' }, description: 'Issuer identifiers' },
    scopes_supported: { type: 'array', items: { type: 'string' } },
    bearer_methods_supported: { type: 'array', items: { type: 'string', enum: ['header'] } },
    resource_name: { type: 'string' },
    resource_documentation: { type: 'string', format: 'uri' },
  },
} satisfies SchemaObject;
