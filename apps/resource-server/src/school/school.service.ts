import { Injectable } from '@nestjs/common';
import type { AuthPrincipal } from '@platform/bearer-auth';
import { InvalidRequestError } from '@platform/oauth-errors';
import { notFound, write } from '../common/errors';
import { iso } from '../common/fields';
import type { School } from '../generated/prisma/client';
import { isStaff, type SchoolQueryDto } from '../tenancy/viewer';
import { ViewerService } from '../tenancy/viewer.service';
import type { SchoolDto, UpdateSchoolDto } from './school.dto';
import { SchoolRepository } from './school.repository';

type Settings = Record<string, string | number | boolean>;

const MAX_SETTINGS = 100;

export function toSchoolView(school: School, staff: boolean): SchoolDto {
  return {
    id: school.id,
    name: school.name,
    slug: school.slug,
    description: school.description,
    contact_email: school.contactEmail,
    website_url: school.websiteUrl,
    timezone: school.timezone,
    currency: school.currency,
    locale: school.locale,
    ...(staff ? { settings: school.settings as Settings } : {}),
    created_at: iso(school.createdAt),
    updated_at: iso(school.updatedAt),
  };
}

/** A PATCH of settings merges into the stored ones; null removes a key. */
export function mergeSettings(current: Settings, change: Record<string, string | number | boolean | null>): Settings {
  const merged: Settings = { ...current };
  for (const [key, value] of Object.entries(change)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  if (Object.keys(merged).length > MAX_SETTINGS) throw new InvalidRequestError(`settings: at most ${MAX_SETTINGS} keys`);
  return merged;
}

/** The school's profile is public; its settings are for token holders with school:read. */
@Injectable()
export class SchoolService {
  constructor(
    private readonly viewers: ViewerService,
    private readonly schools: SchoolRepository,
  ) {}

  async get(principal: AuthPrincipal, query: SchoolQueryDto): Promise<SchoolDto> {
    const viewer = await this.viewers.resolve(principal, query.school);
    const school = await this.schools.findSchool(viewer.schoolId);
    if (!school) throw notFound('school');
    return toSchoolView(school, isStaff(viewer));
  }

  async update(principal: AuthPrincipal, input: UpdateSchoolDto): Promise<SchoolDto> {
    const { schoolId } = await this.viewers.staff(principal);
    const current = await this.schools.findSchool(schoolId);
    if (!current) throw notFound('school');
    const school = await write(
      () =>
        this.schools.updateSchool(schoolId, {
          name: input.name,
          description: input.description,
          contactEmail: input.contact_email,
          websiteUrl: input.website_url,
          timezone: input.timezone,
          currency: input.currency,
          locale: input.locale,
          ...(input.settings ? { settings: mergeSettings(current.settings as Settings, input.settings) } : {}),
        }),
      { notFound: 'school' },
    );
    return toSchoolView(school, true);
  }
}
