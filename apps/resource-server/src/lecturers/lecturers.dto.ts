import { z } from 'zod';
import { httpUrl, isoOut, longText, name, shortText } from '../common/fields';
import { pageQuery } from '../common/pagination';
import { zodDto } from '../common/validation';
import { schoolQuery } from '../tenancy/viewer';

/** A lecturer's profile is public: anonymous callers see the same fields. */
export const LecturerView = z.object({
  id: z.string(),
  name: z.string(),
  headline: z.string(),
  bio: z.string(),
  avatar_url: z.string().nullable(),
  website_url: z.string().nullable(),
  created_at: isoOut,
  updated_at: isoOut,
});
export class LecturerDto extends zodDto(LecturerView, 'output') {}

export const ListLecturersQuery = pageQuery.extend(schoolQuery.shape);
export class ListLecturersQueryDto extends zodDto(ListLecturersQuery, 'input') {}

const lecturerFields = {
  name,
  headline: shortText(200).optional(),
  bio: longText.optional(),
  avatar_url: httpUrl.nullable().optional(),
  website_url: httpUrl.nullable().optional(),
};

export const CreateLecturer = z.strictObject(lecturerFields);
export class CreateLecturerDto extends zodDto(CreateLecturer, 'input') {}

export const UpdateLecturer = z.strictObject(lecturerFields).partial();
export class UpdateLecturerDto extends zodDto(UpdateLecturer, 'input') {}
