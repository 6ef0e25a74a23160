import type { ScopeCatalogue } from '../documents/documents-options';

export interface OpenApiOptions {
  /** The canonical resource URI, no trailing slash: the document's one server. */
  readonly publicBaseUrl: string;
  /** The authorization server's issuer (the same origin here): where the OAuth paths live. */
  readonly issuer: string;
  /** The scope catalogue: the oauth2 scheme's scopes and their descriptions. */
  readonly scopes: ScopeCatalogue;
  readonly title?: string;
  readonly version?: string;
}

export const OPENAPI_OPTIONS = Symbol('OPENAPI_OPTIONS');

/** The name of the OAuth 2.0 security scheme every protected operation refers to. */
export const OAUTH2_SCHEME = 'oauth2';

/**
 * @nestjs/swagger 11 writes `openapi: 3.0.0` by default; it is set explicitly so that an upgrade
 * of the library cannot silently move the document to 3.1 (whose schemas differ: `nullable`,
 * `exclusiveMinimum`).
 */
export const OPENAPI_VERSION = '3.0.3';
