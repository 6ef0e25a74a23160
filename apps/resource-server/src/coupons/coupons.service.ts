import { Injectable } from '@nestjs/common';
import type { AuthPrincipal } from '@platform/bearer-auth';
import { notFound, write } from '../common/errors';
import { iso, isoOrNull } from '../common/fields';
import { byId, idPage, type Page, toPage } from '../common/pagination';
import type { Coupon } from '../generated/prisma/client';
import { ViewerService } from '../tenancy/viewer.service';
import { checkCouponTerms, type CouponTerms } from './coupon-rules';
import type { CouponDto, CreateCouponDto, ListCouponsQueryDto, UpdateCouponDto } from './coupons.dto';
import { CouponsRepository } from './coupons.repository';

export function toCouponView(coupon: Coupon): CouponDto {
  return {
    id: coupon.id,
    code: coupon.code,
    percent_off: coupon.percentOff,
    amount_off_cents: coupon.amountOffCents,
    currency: coupon.currency,
    max_redemptions: coupon.maxRedemptions,
    redemptions: coupon.redemptions,
    valid_from: isoOrNull(coupon.validFrom),
    valid_until: isoOrNull(coupon.validUntil),
    active: coupon.active,
    created_at: iso(coupon.createdAt),
    updated_at: iso(coupon.updatedAt),
  };
}

function toData(input: UpdateCouponDto) {
  return {
    code: input.code,
    percentOff: input.percent_off,
    amountOffCents: input.amount_off_cents,
    currency: input.currency,
    maxRedemptions: input.max_redemptions,
    validFrom: input.valid_from,
    validUntil: input.valid_until,
    active: input.active,
  };
}

/** `given` where given (null included), `current` where not. */
function merged(input: UpdateCouponDto, current: CouponTerms): CouponTerms {
  const pick = <T>(given: T | undefined, now: T): T => (given === undefined ? now : given);
  return {
    percentOff: pick(input.percent_off, current.percentOff),
    amountOffCents: pick(input.amount_off_cents, current.amountOffCents),
    currency: pick(input.currency, current.currency),
    validFrom: pick(input.valid_from, current.validFrom),
    validUntil: pick(input.valid_until, current.validUntil),
  };
}

const NO_TERMS: CouponTerms = { percentOff: null, amountOffCents: null, currency: null, validFrom: null, validUntil: null };
const CODE_TAKEN = 'A coupon with this code already exists in the school';

/** Coupons are private to the school: every route needs a token. */
@Injectable()
export class CouponsService {
  constructor(
    private readonly viewers: ViewerService,
    private readonly coupons: CouponsRepository,
  ) {}

  async list(principal: AuthPrincipal, query: ListCouponsQueryDto): Promise<Page<CouponDto>> {
    const { schoolId } = await this.viewers.staff(principal);
    const page = idPage(query);
    return toPage(await this.coupons.findCouponsPage(schoolId, query.code, page), page.take, byId, toCouponView);
  }

  async get(principal: AuthPrincipal, id: string): Promise<CouponDto> {
    const { schoolId } = await this.viewers.staff(principal);
    const coupon = await this.coupons.findCoupon(schoolId, id);
    if (!coupon) throw notFound('coupon');
    return toCouponView(coupon);
  }

  async create(principal: AuthPrincipal, input: CreateCouponDto): Promise<CouponDto> {
    const { schoolId } = await this.viewers.staff(principal);
    checkCouponTerms(merged(input, NO_TERMS));
    const coupon = await write(() => this.coupons.insertCoupon(schoolId, { ...toData(input), code: input.code }), {
      notFound: 'school',
      conflict: CODE_TAKEN,
    });
    return toCouponView(coupon);
  }

  async update(principal: AuthPrincipal, id: string, input: UpdateCouponDto): Promise<CouponDto> {
    const { schoolId } = await this.viewers.staff(principal);
    const current = await this.coupons.findCoupon(schoolId, id);
    if (!current) throw notFound('coupon');
    checkCouponTerms(merged(input, current));
    const coupon = await write(() => this.coupons.updateCoupon(schoolId, id, toData(input)), { notFound: 'coupon', conflict: CODE_TAKEN });
    return toCouponView(coupon);
  }

  async remove(principal: AuthPrincipal, id: string): Promise<void> {
    const { schoolId } = await this.viewers.staff(principal);
    await write(() => this.coupons.deleteCoupon(schoolId, id), { notFound: 'coupon' });
  }
}
