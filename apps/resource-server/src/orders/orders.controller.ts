import { Body, Controller, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AuthPrincipal, Principal, RequireScopes } from '@platform/bearer-auth';
import { ApiConflict, ApiInvalidRequest, ApiNotFound, ApiPageOf } from '../common/api-docs';
import { API_PREFIX } from '../common/fields';
import { body, query } from '../common/validation';
import { CreateOrder, CreateOrderDto, ListOrdersQuery, ListOrdersQueryDto, OrderDto, UpdateOrderStatus, UpdateOrderStatusDto } from './orders.dto';
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

  @Post()
  @RequireScopes('orders:write')
  @ApiOperation({
    summary: 'Record an order',
    description: 'A sale made elsewhere (a checkout, a payment processor), priced from the school’s catalogue. Reports `order.created` (and `order.paid` when recorded paid) to the webhooks.',
  })
  @ApiCreatedResponse({ type: OrderDto })
  @ApiInvalidRequest()
  @ApiConflict('an order with this number already exists in the school')
  create(@Principal() principal: AuthPrincipal, @Body(body(CreateOrder)) input: CreateOrderDto) {
    return this.orders.create(principal, input);
  }

  @Patch(':orderId')
  @RequireScopes('orders:write')
  @ApiOperation({
    summary: 'Change an order’s status',
    description: 'pending → paid or failed; paid → refunded. Reports `order.paid` or `order.refunded` to the webhooks.',
  })
  @ApiOkResponse({ type: OrderDto })
  @ApiInvalidRequest()
  @ApiNotFound('order')
  @ApiConflict('the order’s current status does not allow the change')
  updateStatus(@Principal() principal: AuthPrincipal, @Param('orderId') id: string, @Body(body(UpdateOrderStatus)) input: UpdateOrderStatusDto) {
    return this.orders.updateStatus(principal, id, input);
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
