import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { PublicRoute } from '@platform/bearer-auth';
import { RESOURCE_PATHS } from '../common/resource-paths';
import { DocumentsService } from './documents.service';
import { PROTECTED_RESOURCE_METADATA_SCHEMA, type ProtectedResourceMetadata } from './protected-resource-metadata';

const CACHE_FIVE_MINUTES = 'public, max-age=300';
const MARKDOWN = 'text/markdown; charset=utf-8';

@ApiTags('Documents')
@Controller()
@PublicRoute()
export class DocumentsController {
  constructor(private readonly documents: DocumentsService) {}

  @Get(RESOURCE_PATHS.protectedResourceMetadata)
  @Header('cache-control', CACHE_FIVE_MINUTES)
  @ApiOperation({ summary: 'OAuth 2.0 protected resource metadata (RFC 9728)' })
  @ApiOkResponse({ description: 'The resource, its authorization server and scopes', schema: PROTECTED_RESOURCE_METADATA_SCHEMA })
  protectedResourceMetadata(): ProtectedResourceMetadata {
    return this.documents.protectedResourceMetadata;
  }

  /** RFC 9728 §3.1: the path-suffixed URL of the `{base}/mcp` resource, its own document (see protected-resource-metadata.ts). */
  @Get(RESOURCE_PATHS.protectedResourceMetadataMcp)
  @Header('cache-control', CACHE_FIVE_MINUTES)
  @ApiOperation({ summary: 'Protected resource metadata at the path-aware URL of the MCP endpoint' })
  @ApiOkResponse({ description: 'The metadata of the resource {base}/mcp: resource is {base}/mcp, scopes_supported the scopes of the MCP tools', schema: PROTECTED_RESOURCE_METADATA_SCHEMA })
  protectedResourceMetadataForMcp(): ProtectedResourceMetadata {
    return this.documents.mcpProtectedResourceMetadata;
  }

  @Get(RESOURCE_PATHS.authGuide)
  @Header('content-type', MARKDOWN)
  @Header('cache-control', CACHE_FIVE_MINUTES)
  @ApiOperation({ summary: 'Authentication guide for developers and AI agents' })
  @ApiProduces('text/markdown')
  @ApiOkResponse({ description: 'Markdown', schema: { type: 'string' } })
  authGuide(): string {
    return this.documents.authGuide;
  }

  @Get(RESOURCE_PATHS.llmsTxt)
  @Header('content-type', 'text/plain; charset=utf-8')
  @Header('cache-control', CACHE_FIVE_MINUTES)
  @ApiOperation({ summary: 'llms.txt: an index of this service for language models' })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'llms.txt', schema: { type: 'string' } })
  llmsTxt(): string {
    return this.documents.llmsTxt;
  }

  @Get(RESOURCE_PATHS.pricing)
  @Header('content-type', MARKDOWN)
  @Header('cache-control', CACHE_FIVE_MINUTES)
  @ApiOperation({ summary: 'Plans, limits and API rate limits' })
  @ApiProduces('text/markdown')
  @ApiOkResponse({ description: 'Markdown', schema: { type: 'string' } })
  pricing(): string {
    return this.documents.pricing;
  }
}
