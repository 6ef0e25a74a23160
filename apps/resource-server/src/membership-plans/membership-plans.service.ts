import { Injectable } from '@nestjs/common';
import type { AuthPrincipal } from '@platform/bearer-auth';
import { notFound, write } from '../common/errors';
import { iso } from '../common/fields';
import { byId, idPage, type Page, toPage } from '../common/pagination';
import type { MembershipPlan } from '../generated/prisma/client';
import { isStaff, type SchoolQueryDto } from '../tenancy/viewer';
import { ViewerService } from '../tenancy/viewer.service';
import type {
  CreateMembershipPlanDto,
  ListMembershipPlansQueryDto,
  MembershipPlanDto,
  UpdateMembershipPlanDto,
} from './membership-plans.dto';
import { MembershipPlansRepository } from './membership-plans.repository';

export function toMembershipPlanView(plan: MembershipPlan): MembershipPlanDto {
  return {
    id: plan.id,
    name: plan.name,
    description: plan.description,
    price_cents: plan.priceCents,
    currency: plan.currency,
    interval: plan.interval as MembershipPlanDto['interval'],
    features: plan.features,
    active: plan.active,
    created_at: iso(plan.createdAt),
    updated_at: iso(plan.updatedAt),
  };
}

function toData(input: UpdateMembershipPlanDto) {
  return {
    name: input.name,
    description: input.description,
    priceCents: input.price_cents,
    currency: input.currency,
    interval: input.interval,
    features: input.features,
    active: input.active,
  };
}

/** Anonymous callers see the active plans (the pricing page); tokens see all. */
@Injectable()
export class MembershipPlansService {
  constructor(
    private readonly viewers: ViewerService,
    private readonly plans: MembershipPlansRepository,
  ) {}

  async list(principal: AuthPrincipal, query: ListMembershipPlansQueryDto): Promise<Page<MembershipPlanDto>> {
    const viewer = await this.viewers.resolve(principal, query.school);
    const page = idPage(query);
    const rows = await this.plans.findPlansPage(viewer.schoolId, { activeOnly: !isStaff(viewer), active: query.active }, page);
    return toPage(rows, page.take, byId, toMembershipPlanView);
  }

  async get(principal: AuthPrincipal, id: string, query: SchoolQueryDto): Promise<MembershipPlanDto> {
    const viewer = await this.viewers.resolve(principal, query.school);
    const plan = await this.plans.findPlan(viewer.schoolId, id, !isStaff(viewer));
    if (!plan) throw notFound('membership plan');
    return toMembershipPlanView(plan);
  }

  async create(principal: AuthPrincipal, input: CreateMembershipPlanDto): Promise<MembershipPlanDto> {
    const { schoolId } = await this.viewers.staff(principal);
    const data = {
      ...toData(input),
      name: input.name,
      priceCents: input.price_cents,
      interval: input.interval,
      currency: input.currency ?? (await this.plans.findSchoolCurrency(schoolId)),
    };
    return toMembershipPlanView(await write(() => this.plans.insertPlan(schoolId, data), { notFound: 'school' }));
  }

  async update(principal: AuthPrincipal, id: string, input: UpdateMembershipPlanDto): Promise<MembershipPlanDto> {
    const { schoolId } = await this.viewers.staff(principal);
    return toMembershipPlanView(await write(() => this.plans.updatePlan(schoolId, id, toData(input)), { notFound: 'membership plan' }));
  }

  async remove(principal: AuthPrincipal, id: string): Promise<void> {
    const { schoolId } = await this.viewers.staff(principal);
    await write(() => this.plans.deletePlan(schoolId, id), {
      notFound: 'membership plan',
      reference: 'The plan has subscriptions: deactivate it (active: false) instead',
    });
  }
}
