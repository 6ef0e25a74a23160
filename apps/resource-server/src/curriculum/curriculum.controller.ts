import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AllowAnonymous, type AuthPrincipal, Principal, RequireScopes } from '@platform/bearer-auth';
import { ApiInvalidRequest, ApiNotFound, ApiPageOf } from '../common/api-docs';
import { API_PREFIX } from '../common/fields';
import { body, query } from '../common/validation';
import { schoolQuery, SchoolQueryDto } from '../tenancy/viewer';
import {
  CreateLesson,
  CreateLessonDto,
  CreateSection,
  CreateSectionDto,
  CurriculumDto,
  LessonDto,
  ListCurriculumQuery,
  ListCurriculumQueryDto,
  SectionDto,
  UpdateLesson,
  UpdateLessonDto,
  UpdateSection,
  UpdateSectionDto,
} from './curriculum.dto';
import { CurriculumService } from './curriculum.service';

const PUBLIC_NOTE = 'Anonymous callers: published courses of ?school= only, and lessons without their content.';

@ApiTags('curriculum')
@Controller(`${API_PREFIX}/courses/:courseId`)
export class CurriculumController {
  constructor(private readonly curriculum: CurriculumService) {}

  @Get('curriculum')
  @RequireScopes('curriculum:read')
  @AllowAnonymous()
  @ApiOperation({ summary: 'Get the outline of a course', description: `Every section with its lessons, in order. ${PUBLIC_NOTE}` })
  @ApiOkResponse({ type: CurriculumDto })
  @ApiNotFound('course')
  outline(@Principal() principal: AuthPrincipal, @Param('courseId') courseId: string, @Query(query(schoolQuery)) q: SchoolQueryDto) {
    return this.curriculum.outline(principal, courseId, q);
  }

  @Get('sections')
  @RequireScopes('curriculum:read')
  @AllowAnonymous()
  @ApiOperation({ summary: 'List the sections of a course', description: `By position, then id. ${PUBLIC_NOTE}` })
  @ApiPageOf(SectionDto)
  @ApiInvalidRequest()
  @ApiNotFound('course')
  listSections(
    @Principal() principal: AuthPrincipal,
    @Param('courseId') courseId: string,
    @Query(query(ListCurriculumQuery)) q: ListCurriculumQueryDto,
  ) {
    return this.curriculum.listSections(principal, courseId, q);
  }

  @Get('sections/:sectionId')
  @RequireScopes('curriculum:read')
  @AllowAnonymous()
  @ApiOperation({ summary: 'Get a section', description: PUBLIC_NOTE })
  @ApiOkResponse({ type: SectionDto })
  @ApiNotFound('course or section')
  getSection(
    @Principal() principal: AuthPrincipal,
    @Param('courseId') courseId: string,
    @Param('sectionId') id: string,
    @Query(query(schoolQuery)) q: SchoolQueryDto,
  ) {
    return this.curriculum.getSection(principal, courseId, id, q);
  }

  @Post('sections')
  @RequireScopes('curriculum:write')
  @ApiOperation({ summary: 'Add a section to a course' })
  @ApiCreatedResponse({ type: SectionDto })
  @ApiInvalidRequest()
  @ApiNotFound('course')
  createSection(@Principal() principal: AuthPrincipal, @Param('courseId') courseId: string, @Body(body(CreateSection)) input: CreateSectionDto) {
    return this.curriculum.createSection(principal, courseId, input);
  }

  @Patch('sections/:sectionId')
  @RequireScopes('curriculum:write')
  @ApiOperation({ summary: 'Rename or move a section' })
  @ApiOkResponse({ type: SectionDto })
  @ApiInvalidRequest()
  @ApiNotFound('section')
  updateSection(
    @Principal() principal: AuthPrincipal,
    @Param('courseId') courseId: string,
    @Param('sectionId') id: string,
    @Body(body(UpdateSection)) input: UpdateSectionDto,
  ) {
    return this.curriculum.updateSection(principal, courseId, id, input);
  }

  @Delete('sections/:sectionId')
  @HttpCode(204)
  @RequireScopes('curriculum:write')
  @ApiOperation({ summary: 'Delete a section', description: 'Its lessons go with it.' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiNotFound('section')
  async removeSection(@Principal() principal: AuthPrincipal, @Param('courseId') courseId: string, @Param('sectionId') id: string) {
    await this.curriculum.removeSection(principal, courseId, id);
  }

  @Get('sections/:sectionId/lessons')
  @RequireScopes('curriculum:read')
  @AllowAnonymous()
  @ApiOperation({ summary: 'List the lessons of a section', description: `By position, then id. ${PUBLIC_NOTE}` })
  @ApiPageOf(LessonDto)
  @ApiInvalidRequest()
  @ApiNotFound('course or section')
  listLessons(
    @Principal() principal: AuthPrincipal,
    @Param('courseId') courseId: string,
    @Param('sectionId') sectionId: string,
    @Query(query(ListCurriculumQuery)) q: ListCurriculumQueryDto,
  ) {
    return this.curriculum.listLessons(principal, courseId, sectionId, q);
  }

  @Post('sections/:sectionId/lessons')
  @RequireScopes('curriculum:write')
  @ApiOperation({ summary: 'Add a lesson to a section' })
  @ApiCreatedResponse({ type: LessonDto })
  @ApiInvalidRequest()
  @ApiNotFound('section')
  createLesson(
    @Principal() principal: AuthPrincipal,
    @Param('courseId') courseId: string,
    @Param('sectionId') sectionId: string,
    @Body(body(CreateLesson)) input: CreateLessonDto,
  ) {
    return this.curriculum.createLesson(principal, courseId, sectionId, input);
  }

  @Get('lessons/:lessonId')
  @RequireScopes('curriculum:read')
  @AllowAnonymous()
  @ApiOperation({ summary: 'Get a lesson', description: PUBLIC_NOTE })
  @ApiOkResponse({ type: LessonDto })
  @ApiNotFound('course or lesson')
  getLesson(
    @Principal() principal: AuthPrincipal,
    @Param('courseId') courseId: string,
    @Param('lessonId') id: string,
    @Query(query(schoolQuery)) q: SchoolQueryDto,
  ) {
    return this.curriculum.getLesson(principal, courseId, id, q);
  }

  @Patch('lessons/:lessonId')
  @RequireScopes('curriculum:write')
  @ApiOperation({ summary: 'Change a lesson', description: 'Only the fields given change; section_id moves it within the course.' })
  @ApiOkResponse({ type: LessonDto })
  @ApiInvalidRequest()
  @ApiNotFound('lesson')
  updateLesson(
    @Principal() principal: AuthPrincipal,
    @Param('courseId') courseId: string,
    @Param('lessonId') id: string,
    @Body(body(UpdateLesson)) input: UpdateLessonDto,
  ) {
    return this.curriculum.updateLesson(principal, courseId, id, input);
  }

  @Delete('lessons/:lessonId')
  @HttpCode(204)
  @RequireScopes('curriculum:write')
  @ApiOperation({ summary: 'Delete a lesson' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiNotFound('lesson')
  async removeLesson(@Principal() principal: AuthPrincipal, @Param('courseId') courseId: string, @Param('lessonId') id: string) {
    await this.curriculum.removeLesson(principal, courseId, id);
  }
}
