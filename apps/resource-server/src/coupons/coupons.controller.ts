import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AuthPrincipal, Principal, RequireScopes } from '@platform/bearer-auth';
import { ApiConflict, ApiInvalidRequest, ApiNotFound, ApiPageOf } from '../common/api-docs';
import { API_PREFIX } from '../common/fields';
import { body, query } from '../common/validation';
import {
  CouponDto,
  CreateCoupon,
  CreateCouponDto,
  ListCouponsQuery,
  ListCouponsQueryDto,
  UpdateCoupon,
  UpdateCouponDto,
} from './coupons.dto';
import { CouponsService } from './coupons.service';
import { PrivateItem, PrivateList } from '../tenancy/anonymous-view';

@ApiTags('coupons')
@Controller(`${API_PREFIX}/coupons`)
export class CouponsController {
  constructor(private readonly coupons: CouponsService) {}

  @Get()
  @RequireScopes('coupons:read')
  @PrivateList()
  @ApiOperation({ summary: 'List coupons', description: 'Private to the school: without a token the list is empty.' })
  @ApiPageOf(CouponDto)
  @ApiInvalidRequest()
  list(@Principal() principal: AuthPrincipal, @Query(query(ListCouponsQuery)) q: ListCouponsQueryDto) {
    return this.coupons.list(principal, q);
  }

  @Get(':couponId')
  @RequireScopes('coupons:read')
  @PrivateItem()
  @ApiOperation({ summary: 'Get a coupon' })
  @ApiOkResponse({ type: CouponDto })
  @ApiNotFound('coupon')
  get(@Principal() principal: AuthPrincipal, @Param('couponId') id: string) {
    return this.coupons.get(principal, id);
  }

  @Post()
  @RequireScopes('coupons:write')
  @ApiOperation({ summary: 'Create a coupon', description: 'Exactly one of percent_off and amount_off_cents (with currency).' })
  @ApiCreatedResponse({ type: CouponDto })
  @ApiInvalidRequest()
  @ApiConflict('the code is taken')
  create(@Principal() principal: AuthPrincipal, @Body(body(CreateCoupon)) input: CreateCouponDto) {
    return this.coupons.create(principal, input);
  }

  @Patch(':couponId')
  @RequireScopes('coupons:write')
  @ApiOperation({ summary: 'Change a coupon' })
  @ApiOkResponse({ type: CouponDto })
  @ApiInvalidRequest()
  @ApiNotFound('coupon')
  @ApiConflict('the code is taken')
  update(@Principal() principal: AuthPrincipal, @Param('couponId') id: string, @Body(body(UpdateCoupon)) input: UpdateCouponDto) {
    return this.coupons.update(principal, id, input);
  }

  @Delete(':couponId')
  @HttpCode(204)
  @RequireScopes('coupons:write')
  @ApiOperation({ summary: 'Delete a coupon', description: 'Orders keep the code they used.' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiNotFound('coupon')
  async remove(@Principal() principal: AuthPrincipal, @Param('couponId') id: string): Promise<void> {
    await this.coupons.remove(principal, id);
  }
}
