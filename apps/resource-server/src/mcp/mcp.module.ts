import { type DynamicModule, Module } from '@nestjs/common';
import { CATALOG_READER } from './catalog-reader';
import { McpHttpHandler } from './mcp-http.handler';
import { MCP_OPTIONS, type McpOptions } from './mcp-options';
import { McpController } from './mcp.controller';
import { PrismaCatalogReader } from './prisma-catalog-reader';
import { ApplicationSchoolServices, SCHOOL_SERVICES } from './school-services';

/**
 * The MCP server at /mcp. Public tools read through CATALOG_READER (Prisma; needs the global
 * DatabaseModule); private tools call the API modules' services (SCHOOL_SERVICES). Tokens are
 * validated by the global BearerAuthModule's TokenValidator.
 */
@Module({})
export class McpModule {
  static register(options: McpOptions): DynamicModule {
    return {
      module: McpModule,
      controllers: [McpController],
      providers: [
        { provide: MCP_OPTIONS, useValue: options },
        { provide: CATALOG_READER, useClass: PrismaCatalogReader },
        { provide: SCHOOL_SERVICES, useClass: ApplicationSchoolServices },
        McpHttpHandler,
      ],
    };
  }
}
