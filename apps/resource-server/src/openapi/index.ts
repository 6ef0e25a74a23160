export { OpenApiModule, publishOpenApiDocument } from './openapi.module';
export { buildOpenApiDocument } from './build-openapi-document';
export { OpenApiDocumentStore } from './openapi-document.store';
export { OPENAPI_OPTIONS, type OpenApiOptions } from './openapi-options';
