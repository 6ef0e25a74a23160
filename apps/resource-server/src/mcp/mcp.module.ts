import { type DynamicModule, Module } from '@nestjs/common';
import { McpHttpHandler } from './mcp-http.handler';
import { MCP_OPTIONS, type McpOptions } from './mcp-options';
import { McpController } from './mcp.controller';
import { ApplicationSchoolServices, SCHOOL_SERVICES } from './school-services';

/**
 * The MCP server at /mcp. Its tools call the API modules' services (SCHOOL_SERVICES): the
 * catalog tools as the anonymous caller, the private tools as the token's principal. Tokens are
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
        { provide: SCHOOL_SERVICES, useClass: ApplicationSchoolServices },
        McpHttpHandler,
      ],
    };
  }
}
