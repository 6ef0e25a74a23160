import { z } from 'zod';
import { email, isoOut, name, shortText } from '../common/fields';
import { pageQuery } from '../common/pagination';
import { zodDto } from '../common/validation';

export const MEMBER_ROLES = ['owner', 'admin', 'instructor', 'support'] as const;

export const MemberView = z.object({
  id: z.string(),
  user_id: z.string().describe('The user id at the authorization server (the access token’s sub)'),
  name: z.string(),
  email: z.string(),
  role: z.enum(MEMBER_ROLES),
  title: z.string(),
  created_at: isoOut,
  updated_at: isoOut,
});
export class MemberDto extends zodDto(MemberView, 'output') {}

export const ListMembersQuery = pageQuery.extend({
  role: z.enum(MEMBER_ROLES).optional().describe('Only members with this role'),
});
export class ListMembersQueryDto extends zodDto(ListMembersQuery, 'input') {}

export const CreateMember = z.strictObject({
  user_id: z.string().min(1).max(200),
  name,
  email,
  role: z.enum(MEMBER_ROLES),
  title: shortText(200).optional(),
});
export class CreateMemberDto extends zodDto(CreateMember, 'input') {}

export const UpdateMember = CreateMember.omit({ user_id: true }).partial();
export class UpdateMemberDto extends zodDto(UpdateMember, 'input') {}
