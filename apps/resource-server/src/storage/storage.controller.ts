import { Body, Controller, Get, Headers, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiPayloadTooLargeResponse, ApiTags, ApiUnsupportedMediaTypeResponse } from '@nestjs/swagger';
import { type AuthPrincipal, Principal, PublicRoute, RequireScopes } from '@platform/bearer-auth';
import type { FastifyReply } from 'fastify';
import { ApiInvalidRequest, ApiNotFound, ErrorDto } from '../common/api-docs';
import { query } from '../common/validation';
import { UPLOAD_CONTENT_TYPES } from './content-types';
import { StoredFileDto, UploadQuery, UploadQueryDto } from './storage.dto';
import { FILES_PATH, StorageService } from './storage.service';

@ApiTags('storage')
@Controller(FILES_PATH)
export class StorageController {
  constructor(private readonly storage: StorageService) {}

  @Post()
  @RequireScopes('storage:write')
  @ApiOperation({
    summary: 'Upload a file',
    description:
      'The request body is the file itself (not multipart), its Content-Type one of the listed types and matching the content. ' +
      'The answer’s url serves the file to anyone who holds it.',
  })
  @ApiConsumes(...UPLOAD_CONTENT_TYPES)
  @ApiBody({ schema: { type: 'string', format: 'binary' } })
  @ApiCreatedResponse({ type: StoredFileDto })
  @ApiInvalidRequest()
  @ApiPayloadTooLargeResponse({ type: ErrorDto, description: 'The file is larger than UPLOAD_MAX_BYTES' })
  @ApiUnsupportedMediaTypeResponse({ type: ErrorDto, description: 'The Content-Type is not allowed' })
  upload(
    @Principal() principal: AuthPrincipal,
    @Headers('content-type') contentType: string | undefined,
    @Body() content: unknown,
    @Query(query(UploadQuery)) q: UploadQueryDto,
  ) {
    return this.storage.upload(principal, contentType, content, q.filename);
  }

  @Get(':fileId')
  @PublicRoute()
  @ApiOperation({ summary: 'Download a file', description: 'No token: the unguessable URL is the permission.' })
  @ApiOkResponse({ description: 'The file, with its Content-Type', schema: { type: 'string', format: 'binary' } })
  @ApiNotFound('file')
  async download(@Param('fileId') id: string, @Res({ passthrough: true }) reply: FastifyReply) {
    const served = await this.storage.serve(id);
    reply.headers(served.headers);
    return served.file;
  }
}
