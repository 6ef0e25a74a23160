import { Injectable } from '@nestjs/common';
import type { AuthPrincipal } from '@platform/bearer-auth';
import { write } from '../common/errors';
import { isoOrNull } from '../common/fields';
import type { Appearance } from '../generated/prisma/client';
import type { SchoolQueryDto } from '../tenancy/viewer';
import { ViewerService } from '../tenancy/viewer.service';
import type { AppearanceDto, UpdateAppearanceDto } from './appearance.dto';
import { AppearanceRepository } from './appearance.repository';

/** The theme of a school that never changed it (the schema's column defaults). */
export const DEFAULT_APPEARANCE: AppearanceDto = {
  primary_color: '#1f6feb',
  accent_color: '#f59e0b',
  background_color: '#ffffff',
  text_color: '#111827',
  font_family: 'Inter',
  logo_url: null,
  favicon_url: null,
  updated_at: null,
};

export function toAppearanceView(appearance: Appearance | null): AppearanceDto {
  if (!appearance) return DEFAULT_APPEARANCE;
  return {
    primary_color: appearance.primaryColor,
    accent_color: appearance.accentColor,
    background_color: appearance.backgroundColor,
    text_color: appearance.textColor,
    font_family: appearance.fontFamily,
    logo_url: appearance.logoUrl,
    favicon_url: appearance.faviconUrl,
    updated_at: isoOrNull(appearance.updatedAt),
  };
}

/** The theme is public (every visitor's browser renders it); changing it needs appearance:write. */
@Injectable()
export class AppearanceService {
  constructor(
    private readonly viewers: ViewerService,
    private readonly appearances: AppearanceRepository,
  ) {}

  async get(principal: AuthPrincipal, query: SchoolQueryDto): Promise<AppearanceDto> {
    const { schoolId } = await this.viewers.resolve(principal, query.school);
    return toAppearanceView(await this.appearances.findAppearance(schoolId));
  }

  async update(principal: AuthPrincipal, input: UpdateAppearanceDto): Promise<AppearanceDto> {
    const { schoolId } = await this.viewers.staff(principal);
    const appearance = await write(
      () =>
        this.appearances.upsertAppearance(schoolId, {
          primaryColor: input.primary_color,
          accentColor: input.accent_color,
          backgroundColor: input.background_color,
          textColor: input.text_color,
          fontFamily: input.font_family,
          logoUrl: input.logo_url,
          faviconUrl: input.favicon_url,
        }),
      { notFound: 'school', reference: 'No such school' },
    );
    return toAppearanceView(appearance);
  }
}
