import { Controller, Delete, Get, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { PublicRoute } from '@platform/bearer-auth';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RESOURCE_PATHS } from '../documents/documents-options';
import { McpHttpHandler } from './mcp-http.handler';

/**
 * `/mcp`, the Model Context Protocol endpoint (Streamable HTTP). Its tools read only the public
 * catalog, so it is a public route (MCP authorization: "Authorization is OPTIONAL for MCP
 * implementations"); the protected resource metadata is published for it all the same, at
 * /.well-known/oauth-protected-resource/mcp, for tools that will need a token. JSON-RPC over
 * one URL is not an OpenAPI operation, so it is left out of /openapi.json (llms.txt and
 * auth.md point to it).
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
