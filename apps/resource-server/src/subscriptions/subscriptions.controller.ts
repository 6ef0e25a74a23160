import { Body, Controller, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AuthPrincipal, Principal, RequireScopes } from '@platform/bearer-auth';
import { ApiConflict, ApiInvalidRequest, ApiNotFound, ApiPageOf } from '../common/api-docs';
import { API_PREFIX } from '../common/fields';
import { body, query } from '../common/validation';
import {
  CreateSubscription,
  CreateSubscriptionDto,
  ListSubscriptionsQuery,
  ListSubscriptionsQueryDto,
  SubscriptionDto,
  UpdateSubscription,
  UpdateSubscriptionDto,
} from './subscriptions.dto';
import { SubscriptionsService } from './subscriptions.service';
import { PrivateItem, PrivateList } from '../tenancy/anonymous-view';

@ApiTags('subscriptions')
@Controller(`${API_PREFIX}/subscriptions`)
export class SubscriptionsController {
  constructor(private readonly subscriptions: SubscriptionsService) {}

  @Get()
  @RequireScopes('subscriptions:read')
  @PrivateList()
  @ApiOperation({ summary: 'List subscriptions to membership plans', description: 'Private to the school: without a token the list is empty.' })
  @ApiPageOf(SubscriptionDto)
  @ApiInvalidRequest()
  list(@Principal() principal: AuthPrincipal, @Query(query(ListSubscriptionsQuery)) q: ListSubscriptionsQueryDto) {
    return this.subscriptions.list(principal, q);
  }

  @Get(':subscriptionId')
  @RequireScopes('subscriptions:read')
  @PrivateItem()
  @ApiOperation({ summary: 'Get a subscription' })
  @ApiOkResponse({ type: SubscriptionDto })
  @ApiNotFound('subscription')
  get(@Principal() principal: AuthPrincipal, @Param('subscriptionId') id: string) {
    return this.subscriptions.get(principal, id);
  }

  @Post()
  @RequireScopes('subscriptions:write')
  @ApiOperation({ summary: 'Subscribe a student to a plan', description: 'The first period ends one interval after started_at.' })
  @ApiCreatedResponse({ type: SubscriptionDto })
  @ApiInvalidRequest()
  create(@Principal() principal: AuthPrincipal, @Body(body(CreateSubscription)) input: CreateSubscriptionDto) {
    return this.subscriptions.create(principal, input);
  }

  @Patch(':subscriptionId')
  @RequireScopes('subscriptions:write')
  @ApiOperation({ summary: 'Change or cancel a subscription', description: 'status canceled cancels it (canceled_at is set).' })
  @ApiOkResponse({ type: SubscriptionDto })
  @ApiInvalidRequest()
  @ApiNotFound('subscription')
  @ApiConflict('a canceled subscription cannot be reopened')
  update(
    @Principal() principal: AuthPrincipal,
    @Param('subscriptionId') id: string,
    @Body(body(UpdateSubscription)) input: UpdateSubscriptionDto,
  ) {
    return this.subscriptions.update(principal, id, input);
  }
}
