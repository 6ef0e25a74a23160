import { Inject, Injectable } from '@nestjs/common';
import { type AuthPrincipal, isTokenPrincipal } from '@platform/bearer-auth';
import { AccessDeniedError, InvalidTokenError } from '@platform/oauth-errors';
import { RESOURCE_CONFIG, type ResourceConfig } from '../config/resource-config';
import { notFound } from '../common/errors';
import { SchoolDirectory } from './school-directory';
import type { StaffViewer, Viewer } from './viewer';

@Injectable()
export class ViewerService {
  constructor(
    @Inject(RESOURCE_CONFIG) private readonly config: ResourceConfig,
    private readonly schools: SchoolDirectory,
  ) {}

  /**
   * The viewer of a route with a public view. With a token the school is the token's: a
   * `?school=` naming another one is 404, never a way into that school.
   */
  async resolve(principal: AuthPrincipal, requestedSchool: string | undefined): Promise<Viewer> {
    if (isTokenPrincipal(principal)) {
      if (requestedSchool !== undefined && requestedSchool !== principal.schoolId) throw notFound('school');
      return this.staff(principal);
    }
    const schoolId = requestedSchool ?? this.config.defaultSchoolId;
    if (!(await this.schools.exists(schoolId))) throw notFound('school');
    return { audience: 'public', schoolId };
  }

  /** The viewer of a route that needs a token (the guard has checked it and its scopes). */
  async staff(principal: AuthPrincipal): Promise<StaffViewer> {
    // Unreachable behind the guard; kept so a mis-annotated route fails closed.
    if (!isTokenPrincipal(principal)) throw new InvalidTokenError('An access token is required');
    if (!(await this.schools.exists(principal.schoolId))) throw notFound('school');
    return { audience: 'staff', schoolId: principal.schoolId, userId: principal.userId, clientId: principal.clientId };
  }

  /**
   * The viewer of a route for the school's owners only (its security events, its webhooks): the
   * token's user must be an owner among the school's members, whatever its scopes. Asked on
   * every call, never cached: a demoted owner loses access at once.
   */
  async owner(principal: AuthPrincipal, what: string): Promise<StaffViewer> {
    const viewer = await this.staff(principal);
    if (!(await this.schools.isOwner(viewer.schoolId, viewer.userId))) {
      throw new AccessDeniedError(`Only the school’s owners may ${what}`);
    }
    return viewer;
  }
}
