import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags, type OpenAPIObject } from '@nestjs/swagger';
import { PublicRoute } from '@platform/bearer-auth';
import { RESOURCE_PATHS } from '../common/resource-paths';
import { OpenApiDocumentStore } from './openapi-document.store';

@ApiTags('Documents')
@Controller()
@PublicRoute()
export class OpenApiController {
  constructor(private readonly store: OpenApiDocumentStore) {}

  @Get(RESOURCE_PATHS.openApi)
  @Header('cache-control', 'public, max-age=300')
  @ApiOperation({ summary: 'This OpenAPI 3.0 document' })
  @ApiOkResponse({ description: 'OpenAPI 3.0 document', schema: { type: 'object' } })
  document(): OpenAPIObject {
    return this.store.get();
  }
}
