import type { SchemaObject } from '@nestjs/swagger';
import { DPOP_SIGNING_ALGORITHMS } from '@platform/dpop';
import { DEFAULT_MCP_RESOURCE_NAME, DEFAULT_RESOURCE_NAME, type DocumentsOptions } from './documents-options';
import { RESOURCE_PATHS } from '../common/resource-paths';

/** RFC 9728 §2 protected resource metadata, the members this resource publishes. */
export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported: string[];
  bearer_methods_supported: ['header'];
  resource_name: string;
  resource_documentation: string;
  dpop_signing_alg_values_supported: string[];
  dpop_bound_access_tokens_required: false;
}

/**
 * RFC 9728 §2 (registered by RFC 9449 §5.1): "dpop_signing_alg_values_supported: OPTIONAL. JSON
 * array containing a list of the JWS alg values supported by the resource server for validating
 * DPoP proof JWTs", and "dpop_bound_access_tokens_required: OPTIONAL. Boolean value specifying
 * whether the protected resource always requires the use of DPoP-bound access tokens": not here,
 * Bearer tokens keep working for clients that do not use DPoP.
 */
function dpopMembers(): Pick<ProtectedResourceMetadata, 'dpop_signing_alg_values_supported' | 'dpop_bound_access_tokens_required'> {
  return { dpop_signing_alg_values_supported: [...DPOP_SIGNING_ALGORITHMS], dpop_bound_access_tokens_required: false };
}

/**
 * The platform's two protected resources, each with its RFC 9728 document:
 * - `{base}`, the API, at /.well-known/oauth-protected-resource;
 * - `{base}/mcp`, the MCP endpoint, at /.well-known/oauth-protected-resource/mcp. RFC 9728
 *   §3.1 forms the metadata URL by inserting the well-known string "between the host component
 *   and the path and/or query components" of the resource identifier, and §3.3: "The
 *   "resource" value returned MUST be identical to the protected resource's resource
 *   identifier value into which the well-known URI path suffix was inserted to create the URL
 *   used to retrieve the metadata" (a client that finds otherwise "MUST NOT use" the document;
 *   oauth4webapi enforces it).
 * A token for `{base}` is accepted at the API and at /mcp (part of the same origin's resource);
 * a token for `{base}/mcp` only at /mcp (see mcp-options.ts, `mcpAudiences`).
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
    ...dpopMembers(),
  };
}

/**
 * The `{base}/mcp` document. `scopes_supported` (§2: "RECOMMENDED ... scope values ... used
 * in authorization requests to request access to this protected resource") lists the minimal
 * baseline the MCP tools use, not the whole catalogue: MCP clients request the scopes listed
 * here when no challenge told them better (MCP authorization, scope selection strategy), and
 * a least-privilege client should not be led to ask for all of them. Never `offline_access`
 * (an authorization server matter, not a resource's).
 */
export function buildMcpProtectedResourceMetadata(options: DocumentsOptions): ProtectedResourceMetadata {
  const base = options.publicBaseUrl;
  return {
    resource: `${base}${RESOURCE_PATHS.mcp}`,
    authorization_servers: [options.issuer],
    scopes_supported: (options.mcpScopes ?? []).filter((scope) => scope !== 'offline_access'),
    bearer_methods_supported: ['header'],
    resource_name: DEFAULT_MCP_RESOURCE_NAME,
    resource_documentation: `${base}${RESOURCE_PATHS.authGuide}`,
    ...dpopMembers(),
  };
}

/** The document's schema, for OpenAPI. */
export const PROTECTED_RESOURCE_METADATA_SCHEMA = {
  type: 'object',
  description: 'RFC 9728 §2 protected resource metadata',
  required: [
    'resource',
    'authorization_servers',
    'scopes_supported',
    'bearer_methods_supported',
    'resource_name',
    'resource_documentation',
    'dpop_signing_alg_values_supported',
    'dpop_bound_access_tokens_required',
  ],
  properties: {
    resource: { type: 'string', format: 'uri', description: 'The canonical resource identifier' },
    authorization_servers: { type: 'array', items: { type: 'string', format: 'uri' }, description: 'Issuer identifiers' },
    scopes_supported: { type: 'array', items: { type: 'string' } },
    bearer_methods_supported: { type: 'array', items: { type: 'string', enum: ['header'] } },
    resource_name: { type: 'string' },
    resource_documentation: { type: 'string', format: 'uri' },
    dpop_signing_alg_values_supported: { type: 'array', items: { type: 'string' }, description: 'RFC 9449: the DPoP proof algorithms accepted' },
    dpop_bound_access_tokens_required: { type: 'boolean', description: 'RFC 9449: false, Bearer tokens are accepted too' },
  },
} satisfies SchemaObject;
