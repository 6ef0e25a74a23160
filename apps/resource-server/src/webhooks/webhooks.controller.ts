import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiForbiddenResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AuthPrincipal, Principal, RequireScopes } from '@platform/bearer-auth';
import { ApiInvalidRequest, ApiNotFound, ApiPageOf, ErrorDto } from '../common/api-docs';
import { API_PREFIX } from '../common/fields';
import { body, query } from '../common/validation';
import {
  CreateWebhook,
  CreateWebhookDto,
  DeliveryDto,
  ListDeliveriesQuery,
  ListDeliveriesQueryDto,
  ListWebhooksQuery,
  ListWebhooksQueryDto,
  UpdateWebhook,
  UpdateWebhookDto,
  WebhookDto,
  WebhookWithSecretDto,
} from './webhooks.dto';
import { WebhooksService } from './webhooks.service';

const OwnersOnly = () => ApiForbiddenResponse({ type: ErrorDto, description: '`access_denied`: the token’s user is not an owner of the school' });

@ApiTags('webhooks')
@Controller(`${API_PREFIX}/webhooks`)
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Get()
  @RequireScopes('webhooks:read')
  @ApiOperation({ summary: 'List webhook subscriptions', description: 'Owners only.' })
  @ApiPageOf(WebhookDto)
  @ApiInvalidRequest()
  @OwnersOnly()
  list(@Principal() principal: AuthPrincipal, @Query(query(ListWebhooksQuery)) q: ListWebhooksQueryDto) {
    return this.webhooks.list(principal, q);
  }

  @Post()
  @RequireScopes('webhooks:write')
  @ApiOperation({
    summary: 'Subscribe an endpoint',
    description:
      'Owners only. The answer carries the signing secret (`whsec_…`) this once. Deliveries are signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature).',
  })
  @ApiCreatedResponse({ type: WebhookWithSecretDto })
  @ApiInvalidRequest()
  @OwnersOnly()
  create(@Principal() principal: AuthPrincipal, @Body(body(CreateWebhook)) input: CreateWebhookDto) {
    return this.webhooks.create(principal, input);
  }

  @Get(':webhookId')
  @RequireScopes('webhooks:read')
  @ApiOperation({ summary: 'Get a webhook subscription', description: 'Owners only. A paused one says why.' })
  @ApiOkResponse({ type: WebhookDto })
  @ApiNotFound('webhook')
  @OwnersOnly()
  get(@Principal() principal: AuthPrincipal, @Param('webhookId') id: string) {
    return this.webhooks.get(principal, id);
  }

  @Patch(':webhookId')
  @RequireScopes('webhooks:write')
  @ApiOperation({ summary: 'Change a webhook subscription', description: 'Owners only. `status: active` resumes a paused endpoint.' })
  @ApiOkResponse({ type: WebhookDto })
  @ApiInvalidRequest()
  @ApiNotFound('webhook')
  @OwnersOnly()
  update(@Principal() principal: AuthPrincipal, @Param('webhookId') id: string, @Body(body(UpdateWebhook)) input: UpdateWebhookDto) {
    return this.webhooks.update(principal, id, input);
  }

  @Delete(':webhookId')
  @HttpCode(204)
  @RequireScopes('webhooks:write')
  @ApiOperation({ summary: 'Remove a webhook subscription', description: 'Owners only. Its deliveries go with it.' })
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiNotFound('webhook')
  @OwnersOnly()
  async remove(@Principal() principal: AuthPrincipal, @Param('webhookId') id: string): Promise<void> {
    await this.webhooks.remove(principal, id);
  }

  @Post(':webhookId/rotate-secret')
  @HttpCode(200)
  @RequireScopes('webhooks:write')
  @ApiOperation({
    summary: 'Rotate the signing secret',
    description: 'Owners only. The new secret is in the answer, this once; the previous one keeps signing beside it until `previous_secret_expires_at`.',
  })
  @ApiOkResponse({ type: WebhookWithSecretDto })
  @ApiNotFound('webhook')
  @OwnersOnly()
  rotateSecret(@Principal() principal: AuthPrincipal, @Param('webhookId') id: string) {
    return this.webhooks.rotateSecret(principal, id);
  }

  @Get(':webhookId/deliveries')
  @RequireScopes('webhooks:read')
  @ApiOperation({ summary: 'List the deliveries of a subscription', description: 'Owners only. Newest first, with their status and last answer.' })
  @ApiPageOf(DeliveryDto)
  @ApiInvalidRequest()
  @ApiNotFound('webhook')
  @OwnersOnly()
  listDeliveries(@Principal() principal: AuthPrincipal, @Param('webhookId') id: string, @Query(query(ListDeliveriesQuery)) q: ListDeliveriesQueryDto) {
    return this.webhooks.listDeliveries(principal, id, q);
  }

  @Post(':webhookId/deliveries/:deliveryId/redeliver')
  @HttpCode(202)
  @RequireScopes('webhooks:write')
  @ApiOperation({ summary: 'Deliver an event again', description: 'Owners only. Queued from its first attempt, with the same webhook-id.' })
  @ApiAcceptedResponse({ type: DeliveryDto })
  @ApiNotFound('delivery')
  @OwnersOnly()
  redeliver(@Principal() principal: AuthPrincipal, @Param('webhookId') id: string, @Param('deliveryId') deliveryId: string) {
    return this.webhooks.redeliver(principal, id, deliveryId);
  }
}
