import { Module } from '@nestjs/common';
import { MembershipPlansController } from './membership-plans.controller';
import { MembershipPlansRepository } from './membership-plans.repository';
import { MembershipPlansService } from './membership-plans.service';

@Module({ controllers: [MembershipPlansController], providers: [MembershipPlansRepository, MembershipPlansService] })
export class MembershipPlansModule {}
