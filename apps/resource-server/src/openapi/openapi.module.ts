import { type DynamicModule, type INestApplication, Module } from '@nestjs/common';
import { buildOpenApiDocument } from './build-openapi-document';
import { OpenApiDocumentStore } from './openapi-document.store';
import { OPENAPI_OPTIONS, type OpenApiOptions } from './openapi-options';
import { OpenApiController } from './openapi.controller';

/** `GET /openapi.json`. The document is built by `publishOpenApiDocument(app)` after `app.init()`. */
@Module({})
export class OpenApiModule {
  static register(options: OpenApiOptions): DynamicModule {
    return {
      module: OpenApiModule,
      controllers: [OpenApiController],
      providers: [{ provide: OPENAPI_OPTIONS, useValue: options }, OpenApiDocumentStore],
      exports: [OpenApiDocumentStore],
    };
  }
}

/** Builds the document of the initialized app and serves it at /openapi.json. */
export function publishOpenApiDocument(app: INestApplication): void {
  const options = app.get<OpenApiOptions>(OPENAPI_OPTIONS);
  app.get(OpenApiDocumentStore).set(buildOpenApiDocument(app, options));
}
