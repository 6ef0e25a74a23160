import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AuthPrincipal, Principal, RequireScopes } from '@platform/bearer-auth';
import { ApiConflict, ApiInvalidRequest, ApiNotFound, ApiPageOf } from '../common/api-docs';
import { API_PREFIX } from '../common/fields';
import { body, query } from '../common/validation';
import {
  CreateEnrollment,
  CreateEnrollmentDto,
  CreateStudent,
  CreateStudentDto,
  EnrollmentDto,
  ListEnrollmentsQuery,
  ListEnrollmentsQueryDto,
  ListStudentsQuery,
  ListStudentsQueryDto,
  StudentDto,
  UpdateEnrollment,
  UpdateEnrollmentDto,
  UpdateStudent,
  UpdateStudentDto,
} from './students.dto';
import { StudentsService } from './students.service';
import { PrivateItem, PrivateList } from '../tenancy/anonymous-view';

@ApiTags('students')
@Controller(`${API_PREFIX}/students`)
export class StudentsController {
  constructor(private readonly students: StudentsService) {}

  @Get()
  @RequireScopes('students:read')
  @PrivateList()
  @ApiOperation({ summary: 'List students', description: 'Private to the school: without a token the list is empty.' })
  @ApiPageOf(StudentDto)
  @ApiInvalidRequest()
  list(@Principal() principal: AuthPrincipal, @Query(query(ListStudentsQuery)) q: ListStudentsQueryDto) {
    return this.students.list(principal, q);
  }

  @Get(':studentId')
  @RequireScopes('students:read')
  @PrivateItem()
  @ApiOperation({ summary: 'Get a student' })
  @ApiOkResponse({ type: StudentDto })
  @ApiNotFound('student')
  get(@Principal() principal: AuthPrincipal, @Param('studentId') id: string) {
    return this.students.get(principal, id);
  }

  @Post()
  @RequireScopes('students:write')
  @ApiOperation({ summary: 'Add a student' })
  @ApiCreatedResponse({ type: StudentDto })
  @ApiInvalidRequest()
  @ApiConflict('a student with this email exists')
  create(@Principal() principal: AuthPrincipal, @Body(body(CreateStudent)) input: CreateStudentDto) {
    return this.students.create(principal, input);
  }

  @Patch(':studentId')
  @RequireScopes('students:write')
  @ApiOperation({ summary: 'Change a student' })
  @ApiOkResponse({ type: StudentDto })
  @ApiInvalidRequest()
  @ApiNotFound('student')
  @ApiConflict('a student with this email exists')
  update(@Principal() principal: AuthPrincipal, @Param('studentId') id: string, @Body(body(UpdateStudent)) input: UpdateStudentDto) {
    return this.students.update(principal, id, input);
  }

  @Delete(':studentId')
  @HttpCode(204)
  @RequireScopes('students:write')
  @ApiOperation({ summary: 'Remove a student', description: 'Their enrollments and subscriptions go too; their orders stay.' })
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiNotFound('student')
  async remove(@Principal() principal: AuthPrincipal, @Param('studentId') id: string): Promise<void> {
    await this.students.remove(principal, id);
  }

  @Get(':studentId/enrollments')
  @RequireScopes('students:read')
  @PrivateList()
  @ApiOperation({ summary: 'List the enrollments of a student' })
  @ApiPageOf(EnrollmentDto)
  @ApiInvalidRequest()
  @ApiNotFound('student')
  listEnrollments(
    @Principal() principal: AuthPrincipal,
    @Param('studentId') studentId: string,
    @Query(query(ListEnrollmentsQuery)) q: ListEnrollmentsQueryDto,
  ) {
    return this.students.listEnrollments(principal, studentId, q);
  }

  @Get(':studentId/enrollments/:enrollmentId')
  @RequireScopes('students:read')
  @PrivateItem()
  @ApiOperation({ summary: 'Get an enrollment' })
  @ApiOkResponse({ type: EnrollmentDto })
  @ApiNotFound('enrollment')
  getEnrollment(@Principal() principal: AuthPrincipal, @Param('studentId') studentId: string, @Param('enrollmentId') id: string) {
    return this.students.getEnrollment(principal, studentId, id);
  }

  @Post(':studentId/enrollments')
  @RequireScopes('students:write')
  @ApiOperation({ summary: 'Enroll a student in a course' })
  @ApiCreatedResponse({ type: EnrollmentDto })
  @ApiInvalidRequest()
  @ApiNotFound('student')
  @ApiConflict('the student is already enrolled in the course')
  enroll(@Principal() principal: AuthPrincipal, @Param('studentId') studentId: string, @Body(body(CreateEnrollment)) input: CreateEnrollmentDto) {
    return this.students.enroll(principal, studentId, input);
  }

  @Patch(':studentId/enrollments/:enrollmentId')
  @RequireScopes('students:write')
  @ApiOperation({ summary: 'Record progress in a course', description: 'progress_percent 100 completes the enrollment.' })
  @ApiOkResponse({ type: EnrollmentDto })
  @ApiInvalidRequest()
  @ApiNotFound('enrollment')
  updateEnrollment(
    @Principal() principal: AuthPrincipal,
    @Param('studentId') studentId: string,
    @Param('enrollmentId') id: string,
    @Body(body(UpdateEnrollment)) input: UpdateEnrollmentDto,
  ) {
    return this.students.updateEnrollment(principal, studentId, id, input);
  }

  @Delete(':studentId/enrollments/:enrollmentId')
  @HttpCode(204)
  @RequireScopes('students:write')
  @ApiOperation({ summary: 'Remove an enrollment' })
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiNotFound('enrollment')
  async unenroll(@Principal() principal: AuthPrincipal, @Param('studentId') studentId: string, @Param('enrollmentId') id: string) {
    await this.students.unenroll(principal, studentId, id);
  }
}
