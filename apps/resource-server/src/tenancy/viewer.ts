import { z } from 'zod';
import { zodDto } from '../common/validation';

/**
 * Who is looking, and at which school. Every repository query takes the school from here.
 * - `public`: no token; the school named by `?school=` (default DEFAULT_SCHOOL_ID); only the
 *   published or public part of anything.
 * - `staff`: a valid token; the token's school and nothing else, whatever the request says.
 *   The token's scopes (checked by the guard) decide what it may read or change.
 */
export type Viewer = PublicViewer | StaffViewer;

export interface PublicViewer {
  readonly audience: 'public';
  readonly schoolId: string;
}

export interface StaffViewer {
  readonly audience: 'staff';
  readonly schoolId: string;
  /** The token's `sub`: the authorization server's user id. */
  readonly userId: string;
  readonly clientId: string;
}

export const isStaff = (viewer: Viewer): viewer is StaffViewer => viewer.audience === 'staff';

/** `?school=`: which school an anonymous caller looks at. */
export const schoolQuery = z.object({
  school: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe('Anonymous callers: the school to look at (default: the platform default school). With a token, only the token’s own school is allowed'),
});

export class SchoolQueryDto extends zodDto(schoolQuery, 'input') {}
