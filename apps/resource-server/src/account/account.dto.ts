import { z } from 'zod';
import { name, shortText } from '../common/fields';
import { zodDto } from '../common/validation';

export const UpdateAccount = z
  .strictObject({
    name,
    title: shortText(200),
  })
  .partial()
  .describe('Your own name and title in the school; role and email are managed elsewhere');
export class UpdateAccountDto extends zodDto(UpdateAccount, 'input') {}
