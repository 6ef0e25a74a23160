import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AllowAnonymous, type AuthPrincipal, Principal, RequireScopes } from '@platform/bearer-auth';
import { ApiInvalidRequest, ApiNotFound, ApiPageOf } from '../common/api-docs';
import { API_PREFIX } from '../common/fields';
import { body, query } from '../common/validation';
import { schoolQuery, SchoolQueryDto } from '../tenancy/viewer';
import {
  CreateDigitalProduct,
  CreateDigitalProductDto,
  DigitalProductDto,
  ListDigitalProductsQuery,
  ListDigitalProductsQueryDto,
  UpdateDigitalProduct,
  UpdateDigitalProductDto,
} from './digital-products.dto';
import { DigitalProductsService } from './digital-products.service';

@ApiTags('digital-products')
@Controller(`${API_PREFIX}/digital-products`)
export class DigitalProductsController {
  constructor(private readonly products: DigitalProductsService) {}

  @Get()
  @RequireScopes('digital_products:read')
  @AllowAnonymous()
  @ApiOperation({ summary: 'List digital products', description: 'Anonymous: the published products of ?school=, without file_id. Token: all.' })
  @ApiPageOf(DigitalProductDto)
  @ApiInvalidRequest()
  list(@Principal() principal: AuthPrincipal, @Query(query(ListDigitalProductsQuery)) q: ListDigitalProductsQueryDto) {
    return this.products.list(principal, q);
  }

  @Get(':productId')
  @RequireScopes('digital_products:read')
  @AllowAnonymous()
  @ApiOperation({ summary: 'Get a digital product', description: 'Anonymous callers get published products only, without file_id.' })
  @ApiOkResponse({ type: DigitalProductDto })
  @ApiNotFound('digital product')
  get(@Principal() principal: AuthPrincipal, @Param('productId') id: string, @Query(query(schoolQuery)) q: SchoolQueryDto) {
    return this.products.get(principal, id, q);
  }

  @Post()
  @RequireScopes('digital_products:write')
  @ApiOperation({ summary: 'Create a digital product' })
  @ApiCreatedResponse({ type: DigitalProductDto })
  @ApiInvalidRequest()
  create(@Principal() principal: AuthPrincipal, @Body(body(CreateDigitalProduct)) input: CreateDigitalProductDto) {
    return this.products.create(principal, input);
  }

  @Patch(':productId')
  @RequireScopes('digital_products:write')
  @ApiOperation({ summary: 'Change or (un)publish a digital product' })
  @ApiOkResponse({ type: DigitalProductDto })
  @ApiInvalidRequest()
  @ApiNotFound('digital product')
  update(
    @Principal() principal: AuthPrincipal,
    @Param('productId') id: string,
    @Body(body(UpdateDigitalProduct)) input: UpdateDigitalProductDto,
  ) {
    return this.products.update(principal, id, input);
  }

  @Delete(':productId')
  @HttpCode(204)
  @RequireScopes('digital_products:write')
  @ApiOperation({ summary: 'Delete a digital product', description: 'Orders keep their items; the stored file stays.' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiNotFound('digital product')
  async remove(@Principal() principal: AuthPrincipal, @Param('productId') id: string): Promise<void> {
    await this.products.remove(principal, id);
  }
}
