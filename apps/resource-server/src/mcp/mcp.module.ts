import { type DynamicModule, Module } from '@nestjs/common';
import { CATALOG_READER } from './catalog-reader';
import { McpHttpHandler } from './mcp-http.handler';
import { MCP_OPTIONS, type McpOptions } from './mcp-options';
import { McpController } from './mcp.controller';
import { PrismaCatalogReader } from './prisma-catalog-reader';

/** The MCP server at /mcp. Reads through CATALOG_READER (Prisma; needs the global DatabaseModule). */
@Module({})
export class McpModule {
  static register(options: McpOptions): DynamicModule {
    return {
      module: McpModule,
      controllers: [McpController],
      providers: [
        { provide: MCP_OPTIONS, useValue: options },
        { provide: CATALOG_READER, useClass: PrismaCatalogReader },
        McpHttpHandler,
      ],
    };
  }
}
