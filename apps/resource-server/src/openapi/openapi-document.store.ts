import { Injectable } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { TemporarilyUnavailableError } from '@platform/oauth-errors';

/**
 * Holds the document built once after `app.init()` (swagger needs every controller
 * registered, which the controller serving the document cannot wait for).
 */
@Injectable()
export class OpenApiDocumentStore {
  private document?: OpenAPIObject;

  set(document: OpenAPIObject): void {
    this.document = document;
  }

  get(): OpenAPIObject {
    if (!this.document) throw new TemporarilyUnavailableError('The OpenAPI document is not built yet', 'publishOpenApiDocument was not called');
    return this.document;
  }
}
