import type { z } from 'zod';
import type {
  publicCourse,
  publicCourseDetail,
  publicDigitalProduct,
  publicEvent,
  publicLecturer,
  publicMembershipPlan,
  publicSchoolProfile,
} from './catalog-schemas';

/**
 * The public catalog as the MCP tools read it: only what an anonymous caller of the API sees
 * (published courses and their outline, lecturers, public events, active membership plans,
 * published digital products, the school's public profile). Every read is scoped to one
 * school; a list answers `null` when the school does not exist.
 */
export interface CatalogReader {
  listCourses(schoolId: string, page: PageRequest): Promise<CatalogPage<PublicCourse> | null>;
  /** Published courses whose title, summary or description contains `text` (case-insensitive). */
  searchCourses(schoolId: string, text: string, page: PageRequest): Promise<CatalogPage<PublicCourse> | null>;
  /** `null`: no such published course in the school (or no such school). */
  getCourse(schoolId: string, courseId: string): Promise<PublicCourseDetail | null>;
  listLecturers(schoolId: string, page: PageRequest): Promise<CatalogPage<PublicLecturer> | null>;
  /** Public events that start at or after `now` (the API's `?upcoming=true`), soonest first. */
  listEvents(schoolId: string, page: PageRequest, now: Date): Promise<CatalogPage<PublicEvent> | null>;
  listMembershipPlans(schoolId: string, page: PageRequest): Promise<CatalogPage<PublicMembershipPlan> | null>;
  listDigitalProducts(schoolId: string, page: PageRequest): Promise<CatalogPage<PublicDigitalProduct> | null>;
  getSchoolProfile(schoolId: string): Promise<PublicSchoolProfile | null>;
}

export const CATALOG_READER = Symbol('CATALOG_READER');

export interface PageRequest {
  limit: number;
  /** The `next_cursor` of the previous page: opaque, issued by the reader. */
  cursor?: string;
}

export interface CatalogPage<T> {
  data: T[];
  next_cursor: string | null;
}

export type PublicCourse = z.infer<typeof publicCourse>;
export type PublicCourseDetail = z.infer<typeof publicCourseDetail>;
export type PublicLecturer = z.infer<typeof publicLecturer>;
export type PublicEvent = z.infer<typeof publicEvent>;
export type PublicMembershipPlan = z.infer<typeof publicMembershipPlan>;
export type PublicDigitalProduct = z.infer<typeof publicDigitalProduct>;
export type PublicSchoolProfile = z.infer<typeof publicSchoolProfile>;
