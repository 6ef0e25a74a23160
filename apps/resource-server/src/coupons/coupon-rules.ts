import { InvalidRequestError } from '@platform/oauth-errors';

export interface CouponTerms {
  percentOff: number | null;
  amountOffCents: number | null;
  currency: string | null;
  validFrom: Date | null;
  validUntil: Date | null;
}

/**
 * The rules a coupon's terms obey as a whole (checked on the merged result of a change, so
 * a PATCH cannot leave a coupon with two discounts or none).
 */
export function checkCouponTerms(terms: CouponTerms): void {
  const kinds = (terms.percentOff !== null ? 1 : 0) + (terms.amountOffCents !== null ? 1 : 0);
  if (kinds !== 1) throw new InvalidRequestError('percent_off: give exactly one of percent_off and amount_off_cents');
  if (terms.amountOffCents !== null && terms.currency === null) {
    throw new InvalidRequestError('currency: required with amount_off_cents');
  }
  if (terms.validFrom && terms.validUntil && terms.validUntil <= terms.validFrom) {
    throw new InvalidRequestError('valid_until: must be after valid_from');
  }
}
