import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AuthPrincipal, Principal, RequireScopes } from '@platform/bearer-auth';
import { ApiInvalidRequest, ApiNotFound, ApiPageOf } from '../common/api-docs';
import { API_PREFIX } from '../common/fields';
import { query } from '../common/validation';
import { ListOrdersQuery, ListOrdersQueryDto, OrderDto } from './orders.dto';
import { OrdersService } from './orders.service';
import { PrivateItem, PrivateList } from '../tenancy/anonymous-view';

@ApiTags('orders')
@Controller(`${API_PREFIX}/orders`)
export class OrdersController {
  constructor(private readonly orders: OrdersService) {}

  @Get()
  @RequireScopes('orders:read')
  @PrivateList()
  @ApiOperation({ summary: 'List orders', description: 'With their items. Private to the school: without a token the list is empty.' })
  @ApiPageOf(OrderDto)
  @ApiInvalidRequest()
  list(@Principal() principal: AuthPrincipal, @Query(query(ListOrdersQuery)) q: ListOrdersQueryDto) {
    return this.orders.list(principal, q);
  }

  @Get(':orderId')
  @RequireScopes('orders:read')
  @PrivateItem()
  @ApiOperation({ summary: 'Get an order' })
  @ApiOkResponse({ type: OrderDto })
  @ApiNotFound('order')
  get(@Principal() principal: AuthPrincipal, @Param('orderId') id: string) {
    return this.orders.get(principal, id);
  }
}
