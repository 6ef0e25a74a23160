import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AllowAnonymous, type AuthPrincipal, Principal, RequireScopes } from '@platform/bearer-auth';
import { ApiConflict, ApiInvalidRequest, ApiNotFound, ApiPageOf } from '../common/api-docs';
import { API_PREFIX } from '../common/fields';
import { body, query } from '../common/validation';
import { schoolQuery, SchoolQueryDto } from '../tenancy/viewer';
import { CourseDto, CreateCourse, CreateCourseDto, ListCoursesQuery, ListCoursesQueryDto, UpdateCourse, UpdateCourseDto } from './courses.dto';
import { CoursesService } from './courses.service';

@ApiTags('courses')
@Controller(`${API_PREFIX}/courses`)
export class CoursesController {
  constructor(private readonly courses: CoursesService) {}

  @Get()
  @RequireScopes('courses:read')
  @AllowAnonymous()
  @ApiOperation({ summary: 'List courses', description: 'Anonymous: the published courses of ?school=. Token: every course of its school.' })
  @ApiPageOf(CourseDto)
  @ApiInvalidRequest()
  list(@Principal() principal: AuthPrincipal, @Query(query(ListCoursesQuery)) q: ListCoursesQueryDto) {
    return this.courses.list(principal, q);
  }

  @Get(':courseId')
  @RequireScopes('courses:read')
  @AllowAnonymous()
  @ApiOperation({ summary: 'Get a course', description: 'Anonymous callers get published courses only.' })
  @ApiOkResponse({ type: CourseDto })
  @ApiNotFound('course')
  get(@Principal() principal: AuthPrincipal, @Param('courseId') id: string, @Query(query(schoolQuery)) q: SchoolQueryDto) {
    return this.courses.get(principal, id, q);
  }

  @Post()
  @RequireScopes('courses:write')
  @ApiOperation({ summary: 'Create a course' })
  @ApiCreatedResponse({ type: CourseDto })
  @ApiInvalidRequest()
  @ApiConflict('the slug is taken')
  create(@Principal() principal: AuthPrincipal, @Body(body(CreateCourse)) input: CreateCourseDto) {
    return this.courses.create(principal, input);
  }

  @Patch(':courseId')
  @RequireScopes('courses:write')
  @ApiOperation({ summary: 'Change a course', description: 'Only the fields given change.' })
  @ApiOkResponse({ type: CourseDto })
  @ApiInvalidRequest()
  @ApiNotFound('course')
  @ApiConflict('the slug is taken')
  update(@Principal() principal: AuthPrincipal, @Param('courseId') id: string, @Body(body(UpdateCourse)) input: UpdateCourseDto) {
    return this.courses.update(principal, id, input);
  }

  @Delete(':courseId')
  @HttpCode(204)
  @RequireScopes('courses:write')
  @ApiOperation({ summary: 'Delete a course', description: 'Its sections, lessons and enrollments go with it; orders keep their items.' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiNotFound('course')
  async remove(@Principal() principal: AuthPrincipal, @Param('courseId') id: string): Promise<void> {
    await this.courses.remove(principal, id);
  }
}
