import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AuthPrincipal, Principal, RequireScopes } from '@platform/bearer-auth';
import { ApiInvalidRequest } from '../common/api-docs';
import { API_PREFIX } from '../common/fields';
import { query } from '../common/validation';
import {
  EnrollmentsReportDto,
  RevenueQuery,
  RevenueQueryDto,
  RevenueReportDto,
  SeriesQuery,
  SeriesQueryDto,
  TopCoursesQuery,
  TopCoursesQueryDto,
  TopCoursesReportDto,
} from './analytics.dto';
import { AnalyticsService } from './analytics.service';
import { PrivateItem } from '../tenancy/anonymous-view';

@ApiTags('analytics')
@Controller(`${API_PREFIX}/analytics`)
export class AnalyticsController {
  constructor(private readonly analytics: AnalyticsService) {}

  @Get('revenue')
  @RequireScopes('analytics:read')
  @PrivateItem()
  @ApiOperation({
    summary: 'Revenue over time',
    description: 'Paid orders by day or month in the school’s time zone, refunds, and the recurring revenue of active subscriptions.',
  })
  @ApiOkResponse({ type: RevenueReportDto })
  @ApiInvalidRequest()
  revenue(@Principal() principal: AuthPrincipal, @Query(query(RevenueQuery)) q: RevenueQueryDto) {
    return this.analytics.revenue(principal, q);
  }

  @Get('enrollments')
  @RequireScopes('analytics:read')
  @PrivateItem()
  @ApiOperation({ summary: 'Enrollments over time', description: 'Enrollments started and completed, by day or month in the school’s time zone.' })
  @ApiOkResponse({ type: EnrollmentsReportDto })
  @ApiInvalidRequest()
  enrollments(@Principal() principal: AuthPrincipal, @Query(query(SeriesQuery)) q: SeriesQueryDto) {
    return this.analytics.enrollments(principal, q);
  }

  @Get('top-courses')
  @RequireScopes('analytics:read')
  @PrivateItem()
  @ApiOperation({
    summary: 'Best-selling or most-enrolled courses',
    description: 'A ranking (at most `limit` courses), not a paginated list. Default range: the last 12 months.',
  })
  @ApiOkResponse({ type: TopCoursesReportDto })
  @ApiInvalidRequest()
  topCourses(@Principal() principal: AuthPrincipal, @Query(query(TopCoursesQuery)) q: TopCoursesQueryDto) {
    return this.analytics.topCourses(principal, q);
  }
}
