import { Injectable } from '@nestjs/common';
import type { AuthPrincipal } from '@platform/bearer-auth';
import { notFound, write } from '../common/errors';
import { iso } from '../common/fields';
import { byId, idPage, type Page, toPage } from '../common/pagination';
import type { Lecturer } from '../generated/prisma/client';
import type { SchoolQueryDto } from '../tenancy/viewer';
import { ViewerService } from '../tenancy/viewer.service';
import type { CreateLecturerDto, LecturerDto, ListLecturersQueryDto, UpdateLecturerDto } from './lecturers.dto';
import { LecturersRepository } from './lecturers.repository';

export function toLecturerView(lecturer: Lecturer): LecturerDto {
  return {
    id: lecturer.id,
    name: lecturer.name,
    headline: lecturer.headline,
    bio: lecturer.bio,
    avatar_url: lecturer.avatarUrl,
    website_url: lecturer.websiteUrl,
    created_at: iso(lecturer.createdAt),
    updated_at: iso(lecturer.updatedAt),
  };
}

function toData(input: UpdateLecturerDto) {
  return {
    name: input.name,
    headline: input.headline,
    bio: input.bio,
    avatarUrl: input.avatar_url,
    websiteUrl: input.website_url,
  };
}

/** Lecturer profiles are public in full: anonymous callers and tokens see the same. */
@Injectable()
export class LecturersService {
  constructor(
    private readonly viewers: ViewerService,
    private readonly lecturers: LecturersRepository,
  ) {}

  async list(principal: AuthPrincipal, query: ListLecturersQueryDto): Promise<Page<LecturerDto>> {
    const { schoolId } = await this.viewers.resolve(principal, query.school);
    const page = idPage(query);
    return toPage(await this.lecturers.findLecturersPage(schoolId, page), page.take, byId, toLecturerView);
  }

  async get(principal: AuthPrincipal, id: string, query: SchoolQueryDto): Promise<LecturerDto> {
    const { schoolId } = await this.viewers.resolve(principal, query.school);
    const lecturer = await this.lecturers.findLecturer(schoolId, id);
    if (!lecturer) throw notFound('lecturer');
    return toLecturerView(lecturer);
  }

  async create(principal: AuthPrincipal, input: CreateLecturerDto): Promise<LecturerDto> {
    const { schoolId } = await this.viewers.staff(principal);
    const lecturer = await write(() => this.lecturers.insertLecturer(schoolId, { ...toData(input), name: input.name }), {
      notFound: 'school',
    });
    return toLecturerView(lecturer);
  }

  async update(principal: AuthPrincipal, id: string, input: UpdateLecturerDto): Promise<LecturerDto> {
    const { schoolId } = await this.viewers.staff(principal);
    return toLecturerView(await write(() => this.lecturers.updateLecturer(schoolId, id, toData(input)), { notFound: 'lecturer' }));
  }

  /** Their courses stay, without a lecturer. */
  async remove(principal: AuthPrincipal, id: string): Promise<void> {
    const { schoolId } = await this.viewers.staff(principal);
    await write(() => this.lecturers.deleteLecturer(schoolId, id), { notFound: 'lecturer' });
  }
}
