import { Controller, Delete, Get, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { PublicRoute } from '@platform/bearer-auth';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RESOURCE_PATHS } from '../common/resource-paths';
import { McpHttpHandler } from './mcp-http.handler';

/**
 * `/mcp`, the Model Context Protocol endpoint (Streamable HTTP). Outside the global guard
 * (@PublicRoute): which scopes a request needs depends on the tool a JSON-RPC message calls,
 * not on the route, so McpHttpHandler authenticates the caller itself (the same TokenValidator,
 * the audiences of /mcp) and challenges per tool; its protected resource metadata is
 * /.well-known/oauth-protected-resource/mcp. JSON-RPC over one URL is not an OpenAPI
 * operation, so it is left out of /openapi.json (llms.txt and auth.md point to it).
 */
@ApiExcludeController()
@Controller(RESOURCE_PATHS.mcp)
@PublicRoute()
export class McpController {
  constructor(private readonly mcp: McpHttpHandler) {}

  @Post()
  post(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.mcp.post(request, reply);
  }

  @Get()
  get(@Res() reply: FastifyReply): void {
    this.mcp.methodNotAllowed(reply);
  }

  @Delete()
  remove(@Res() reply: FastifyReply): void {
    this.mcp.methodNotAllowed(reply);
  }
}
