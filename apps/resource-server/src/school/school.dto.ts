import { z } from 'zod';
import { currency, email, httpUrl, isoOut, longText, name } from '../common/fields';
import { zodDto } from '../common/validation';

const settingValue = z.union([z.string().max(1_000), z.number(), z.boolean()]);

export const SchoolView = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  description: z.string(),
  contact_email: z.string().nullable(),
  website_url: z.string().nullable(),
  timezone: z.string().describe('IANA time zone; the analytics group days and months in it'),
  currency: z.string(),
  locale: z.string(),
  settings: z.record(z.string(), settingValue).optional().describe('Staff-only settings. Absent for anonymous callers'),
  created_at: isoOut,
  updated_at: isoOut,
});
export class SchoolDto extends zodDto(SchoolView, 'output') {}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export const UpdateSchool = z
  .strictObject({
    name,
    description: longText,
    contact_email: email.nullable(),
    website_url: httpUrl.nullable(),
    timezone: z.string().max(64).refine(isTimeZone, 'an IANA time zone such as Europe/Berlin'),
    currency,
    locale: z.string().regex(/^[a-z]{2,3}(?:-[A-Z]{2})?$/, 'a language tag such as en or pt-BR'),
    settings: z
      .record(z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'snake_case keys'), settingValue.nullable())
      .refine((settings) => Object.keys(settings).length <= 50, 'at most 50 keys per change')
      .describe('Merged into the current settings; a null value removes the key'),
  })
  .partial();
export class UpdateSchoolDto extends zodDto(UpdateSchool, 'input') {}
