import { z } from 'zod';
import { httpUrl, isoOut } from '../common/fields';
import { zodDto } from '../common/validation';

const color = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'a hex color such as #1f6feb').transform((value) => value.toLowerCase());

export const AppearanceView = z.object({
  primary_color: z.string(),
  accent_color: z.string(),
  background_color: z.string(),
  text_color: z.string(),
  font_family: z.string(),
  logo_url: z.string().nullable(),
  favicon_url: z.string().nullable(),
  updated_at: isoOut.nullable().describe('null while the school still uses the default theme'),
});
export class AppearanceDto extends zodDto(AppearanceView, 'output') {}

export const UpdateAppearance = z
  .strictObject({
    primary_color: color,
    accent_color: color,
    background_color: color,
    text_color: color,
    font_family: z.string().trim().min(1).max(100).regex(/^[A-Za-z0-9 ,'-]+$/, 'a font name such as Inter or "Source Sans 3"'),
    logo_url: httpUrl.nullable(),
    favicon_url: httpUrl.nullable(),
  })
  .partial();
export class UpdateAppearanceDto extends zodDto(UpdateAppearance, 'input') {}
