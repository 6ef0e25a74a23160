import type { ScopeGroup } from '@platform/scopes';

/** The scope catalogue as these documents read it: `SCOPES` of `@platform/scopes`. */
export type ScopeCatalogue = Readonly<Record<string, { readonly description: string; readonly group: ScopeGroup }>>;

export interface DocumentsOptions {
  /**
   * The canonical resource URI (RFC 8707), the public origin: `PUBLIC_BASE_URL` without a
   * trailing slash. Every link in the documents is built from it.
   */
  readonly publicBaseUrl: string;
  /** The authorization server's issuer; the same origin on this platform. */
  readonly issuer: string;
  /** The scope catalogue, in the order it is listed. */
  readonly scopes: ScopeCatalogue;
  /** The pricing data file, read and validated once at start (see `resolvePricingFile`). */
  readonly pricingFile: string;
  /** Human-readable name of the protected resource (RFC 9728 `resource_name`). */
  readonly resourceName?: string;
  /**
   * The scopes the MCP tools use (`mcpScopes()` of the MCP module): `scopes_supported` of the
   * `{base}/mcp` resource. Default: none listed.
   */
  readonly mcpScopes?: readonly string[];
}

export const DOCUMENTS_OPTIONS = Symbol('DOCUMENTS_OPTIONS');

export const DEFAULT_RESOURCE_NAME = 'Course Platform API';
export const DEFAULT_MCP_RESOURCE_NAME = 'Course Platform MCP server';

/** Refuses a base URL the documents could not be built from, naming the option. */
export function assertOrigin(name: string, value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${name} must be an absolute URL, got "${value}"`);
  }
  if (value.endsWith('/')) throw new Error(`${name} must not end with a slash, got "${value}"`);
  if (url.search || url.hash) throw new Error(`${name} must not have a query or fragment, got "${value}"`);
}
