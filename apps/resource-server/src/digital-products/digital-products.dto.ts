import { z } from 'zod';
import { cents, currency, isoOut, longText, queryFlag, ref, title } from '../common/fields';
import { pageQuery } from '../common/pagination';
import { zodDto } from '../common/validation';
import { schoolQuery } from '../tenancy/viewer';

export const PRODUCT_KINDS = ['ebook', 'template', 'audio', 'video', 'bundle', 'other'] as const;

export const DigitalProductView = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  price_cents: z.number().int(),
  currency: z.string(),
  kind: z.enum(PRODUCT_KINDS),
  published: z.boolean(),
  file_id: z.string().nullable().optional().describe('The deliverable in storage. Absent for anonymous callers'),
  created_at: isoOut,
  updated_at: isoOut,
});
export class DigitalProductDto extends zodDto(DigitalProductView, 'output') {}

export const ListDigitalProductsQuery = pageQuery.extend({
  ...schoolQuery.shape,
  published: queryFlag.optional().describe('Token callers: filter by published state (anonymous callers only see published products)'),
});
export class ListDigitalProductsQueryDto extends zodDto(ListDigitalProductsQuery, 'input') {}

const productFields = {
  title,
  description: longText.optional(),
  price_cents: cents,
  currency: currency.optional().describe('Defaults to the school’s currency'),
  kind: z.enum(PRODUCT_KINDS).optional(),
  published: z.boolean().optional(),
  file_id: ref.nullable().optional().describe('A file uploaded to this school’s storage'),
};

export const CreateDigitalProduct = z.strictObject(productFields);
export class CreateDigitalProductDto extends zodDto(CreateDigitalProduct, 'input') {}

export const UpdateDigitalProduct = z.strictObject(productFields).partial();
export class UpdateDigitalProductDto extends zodDto(UpdateDigitalProduct, 'input') {}
