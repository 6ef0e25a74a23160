import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AllowAnonymous, type AuthPrincipal, Principal, RequireScopes } from '@platform/bearer-auth';
import { ApiInvalidRequest, ApiNotFound, ApiPageOf } from '../common/api-docs';
import { API_PREFIX } from '../common/fields';
import { body, query } from '../common/validation';
import { schoolQuery, SchoolQueryDto } from '../tenancy/viewer';
import {
  CreateLecturer,
  CreateLecturerDto,
  LecturerDto,
  ListLecturersQuery,
  ListLecturersQueryDto,
  UpdateLecturer,
  UpdateLecturerDto,
} from './lecturers.dto';
import { LecturersService } from './lecturers.service';

@ApiTags('lecturers')
@Controller(`${API_PREFIX}/lecturers`)
export class LecturersController {
  constructor(private readonly lecturers: LecturersService) {}

  @Get()
  @RequireScopes('lecturers:read')
  @AllowAnonymous()
  @ApiOperation({ summary: 'List lecturers', description: 'Lecturer profiles are public: anonymous callers see those of ?school=.' })
  @ApiPageOf(LecturerDto)
  @ApiInvalidRequest()
  list(@Principal() principal: AuthPrincipal, @Query(query(ListLecturersQuery)) q: ListLecturersQueryDto) {
    return this.lecturers.list(principal, q);
  }

  @Get(':lecturerId')
  @RequireScopes('lecturers:read')
  @AllowAnonymous()
  @ApiOperation({ summary: 'Get a lecturer' })
  @ApiOkResponse({ type: LecturerDto })
  @ApiNotFound('lecturer')
  get(@Principal() principal: AuthPrincipal, @Param('lecturerId') id: string, @Query(query(schoolQuery)) q: SchoolQueryDto) {
    return this.lecturers.get(principal, id, q);
  }

  @Post()
  @RequireScopes('lecturers:write')
  @ApiOperation({ summary: 'Add a lecturer' })
  @ApiCreatedResponse({ type: LecturerDto })
  @ApiInvalidRequest()
  create(@Principal() principal: AuthPrincipal, @Body(body(CreateLecturer)) input: CreateLecturerDto) {
    return this.lecturers.create(principal, input);
  }

  @Patch(':lecturerId')
  @RequireScopes('lecturers:write')
  @ApiOperation({ summary: 'Change a lecturer', description: 'Only the fields given change.' })
  @ApiOkResponse({ type: LecturerDto })
  @ApiInvalidRequest()
  @ApiNotFound('lecturer')
  update(@Principal() principal: AuthPrincipal, @Param('lecturerId') id: string, @Body(body(UpdateLecturer)) input: UpdateLecturerDto) {
    return this.lecturers.update(principal, id, input);
  }

  @Delete(':lecturerId')
  @HttpCode(204)
  @RequireScopes('lecturers:write')
  @ApiOperation({ summary: 'Remove a lecturer', description: 'Their courses stay, without a lecturer.' })
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiNotFound('lecturer')
  async remove(@Principal() principal: AuthPrincipal, @Param('lecturerId') id: string): Promise<void> {
    await this.lecturers.remove(principal, id);
  }
}
