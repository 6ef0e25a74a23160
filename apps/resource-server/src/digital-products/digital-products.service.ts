import { Injectable } from '@nestjs/common';
import type { AuthPrincipal } from '@platform/bearer-auth';
import { InvalidRequestError } from '@platform/oauth-errors';
import { notFound, write } from '../common/errors';
import { iso } from '../common/fields';
import { byId, idPage, type Page, toPage } from '../common/pagination';
import type { DigitalProduct } from '../generated/prisma/client';
import { isStaff, type SchoolQueryDto } from '../tenancy/viewer';
import { ViewerService } from '../tenancy/viewer.service';
import type {
  CreateDigitalProductDto,
  DigitalProductDto,
  ListDigitalProductsQueryDto,
  UpdateDigitalProductDto,
} from './digital-products.dto';
import { DigitalProductsRepository } from './digital-products.repository';

/** The deliverable's file id is what buyers pay for: never in the public view. */
export function toDigitalProductView(product: DigitalProduct, staff: boolean): DigitalProductDto {
  return {
    id: product.id,
    title: product.title,
    description: product.description,
    price_cents: product.priceCents,
    currency: product.currency,
    kind: product.kind as DigitalProductDto['kind'],
    published: product.published,
    ...(staff ? { file_id: product.fileId } : {}),
    created_at: iso(product.createdAt),
    updated_at: iso(product.updatedAt),
  };
}

function toData(input: UpdateDigitalProductDto) {
  return {
    title: input.title,
    description: input.description,
    priceCents: input.price_cents,
    currency: input.currency,
    kind: input.kind,
    published: input.published,
    fileId: input.file_id,
  };
}

/** Anonymous callers see published products (without the file); tokens see all. */
@Injectable()
export class DigitalProductsService {
  constructor(
    private readonly viewers: ViewerService,
    private readonly products: DigitalProductsRepository,
  ) {}

  async list(principal: AuthPrincipal, query: ListDigitalProductsQueryDto): Promise<Page<DigitalProductDto>> {
    const viewer = await this.viewers.resolve(principal, query.school);
    const staff = isStaff(viewer);
    const page = idPage(query);
    const rows = await this.products.findProductsPage(viewer.schoolId, { publishedOnly: !staff, published: query.published }, page);
    return toPage(rows, page.take, byId, (product) => toDigitalProductView(product, staff));
  }

  async get(principal: AuthPrincipal, id: string, query: SchoolQueryDto): Promise<DigitalProductDto> {
    const viewer = await this.viewers.resolve(principal, query.school);
    const product = await this.products.findProduct(viewer.schoolId, id, !isStaff(viewer));
    if (!product) throw notFound('digital product');
    return toDigitalProductView(product, isStaff(viewer));
  }

  async create(principal: AuthPrincipal, input: CreateDigitalProductDto): Promise<DigitalProductDto> {
    const { schoolId } = await this.viewers.staff(principal);
    if (input.file_id) await this.checkFile(schoolId, input.file_id);
    const data = {
      ...toData(input),
      title: input.title,
      priceCents: input.price_cents,
      currency: input.currency ?? (await this.products.findSchoolCurrency(schoolId)),
    };
    return toDigitalProductView(await write(() => this.products.insertProduct(schoolId, data), { notFound: 'school' }), true);
  }

  async update(principal: AuthPrincipal, id: string, input: UpdateDigitalProductDto): Promise<DigitalProductDto> {
    const { schoolId } = await this.viewers.staff(principal);
    if (input.file_id) await this.checkFile(schoolId, input.file_id);
    const product = await write(() => this.products.updateProduct(schoolId, id, toData(input)), { notFound: 'digital product' });
    return toDigitalProductView(product, true);
  }

  async remove(principal: AuthPrincipal, id: string): Promise<void> {
    const { schoolId } = await this.viewers.staff(principal);
    await write(() => this.products.deleteProduct(schoolId, id), { notFound: 'digital product' });
  }

  private async checkFile(schoolId: string, fileId: string): Promise<void> {
    if (!(await this.products.storedFileExists(schoolId, fileId))) {
      throw new InvalidRequestError('file_id: no such file in this school’s storage');
    }
  }
}
