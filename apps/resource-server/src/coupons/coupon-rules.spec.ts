import { InvalidRequestError } from '@platform/oauth-errors';
import { checkCouponTerms, type CouponTerms } from './coupon-rules';

const none: CouponTerms = { percentOff: null, amountOffCents: null, currency: null, validFrom: null, validUntil: null };
const jan = new Date('2026-01-01T00:00:00Z');
const feb = new Date('2026-02-01T00:00:00Z');

describe('checkCouponTerms', () => {
  it.each([
    ['a percentage', { percentOff: 10 }],
    ['a fixed amount with its currency', { amountOffCents: 500, currency: 'USD' }],
    ['a validity window', { percentOff: 10, validFrom: jan, validUntil: feb }],
    ['an open-ended window', { percentOff: 10, validFrom: jan }],
  ])('accepts %s', (_name, terms) => {
    expect(() => checkCouponTerms({ ...none, ...terms })).not.toThrow();
  });

  it.each([
    ['no discount', {}, 'percent_off'],
    ['two discounts', { percentOff: 10, amountOffCents: 500, currency: 'USD' }, 'percent_off'],
    ['an amount without currency', { amountOffCents: 500 }, 'currency'],
    ['a window that ends before it starts', { percentOff: 10, validFrom: feb, validUntil: jan }, 'valid_until'],
    ['an empty window', { percentOff: 10, validFrom: jan, validUntil: jan }, 'valid_until'],
  ])('refuses %s, naming %s', (_name, terms, field) => {
    expect(() => checkCouponTerms({ ...none, ...terms })).toThrow(InvalidRequestError);
    expect(() => checkCouponTerms({ ...none, ...terms })).toThrow(new RegExp(`^${field}: `));
  });
});
